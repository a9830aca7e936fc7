"""tau2-bench's banking_knowledge domain, implemented by agenttune on the shared data (``tau2_banking_knowledge``):
a bank's transactional database, the agent's and the customer's tools, discoverable tools the knowledge base
names, and knowledge-base search through agenttune's retrieval backends. ``environment`` is its tau2 module."""
