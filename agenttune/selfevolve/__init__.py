"""Self-evolution of tool-using agents: ToolGraph guidance, failure attribution, divergence-point DPO pairs."""
