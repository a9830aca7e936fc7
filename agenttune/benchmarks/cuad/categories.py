"""CUAD's 41 clause categories (CSV column names) and a natural question for each.

The questions paraphrase the category descriptions in ``CUAD_v1_README.txt``; ``{contract}`` is replaced
by a reference to one contract (its title and parties) so that a search is needed to answer.
"""

from __future__ import annotations

# The LegalBench-RAG CUAD rule leaves these out: their quotes are dates scattered through the preamble.
DATE_CATEGORIES = ("Agreement Date", "Effective Date")

# Categories whose CSV answer column holds a short derived answer rather than Yes/No.
SHORT_ANSWER_CATEGORIES = (
    "Document Name",
    "Parties",
    "Agreement Date",
    "Effective Date",
    "Expiration Date",
    "Renewal Term",
    "Notice Period To Terminate Renewal",
    "Governing Law",
    "Warranty Duration",
)

QUESTIONS: dict[str, str] = {
    "Document Name": "What is the title of {contract}?",
    "Parties": "Who are the parties that signed {contract}?",
    "Agreement Date": "On what date was {contract} made?",
    "Effective Date": "On what date does {contract} become effective?",
    "Expiration Date": "When does the initial term of {contract} expire?",
    "Renewal Term": "What renewal term applies once the initial term of {contract} expires?",
    "Notice Period To Terminate Renewal": "How much notice must be given to stop {contract} from renewing?",
    "Governing Law": "Which state's or country's law governs {contract}?",
    "Most Favored Nation": "Which clause of {contract} gives a party better terms that a third party receives (most favored nation)?",
    "Competitive Restriction Exception": "Which clause of {contract} sets out exceptions to its non-compete, exclusivity or no-solicit restrictions?",
    "Non-Compete": "Which clause of {contract} restricts a party from competing with the other or operating in a market, region or sector?",
    "Exclusivity": "Which clause of {contract} creates an exclusive dealing commitment?",
    "No-Solicit Of Customers": "Which clause of {contract} restricts a party from soliciting the other party's customers or partners?",
    "No-Solicit Of Employees": "Which clause of {contract} restricts a party from soliciting or hiring the other party's employees?",
    "Non-Disparagement": "Which clause of {contract} requires a party not to disparage the other?",
    "Termination For Convenience": "Which clause of {contract} lets a party terminate without cause, by giving notice?",
    "Rofr/Rofo/Rofn": "Which clause of {contract} grants a right of first refusal, first offer or first negotiation?",
    "Change Of Control": "What does {contract} provide when a party undergoes a change of control, such as a merger or sale of its business?",
    "Anti-Assignment": "Which clause of {contract} requires consent or notice before it is assigned to a third party?",
    "Revenue/Profit Sharing": "Which clause of {contract} requires a party to share revenue or profit with the other?",
    "Price Restrictions": "Which clause of {contract} restricts a party's ability to raise or reduce prices?",
    "Minimum Commitment": "What minimum order, amount or volume must a party buy under {contract}?",
    "Volume Restriction": "Which clause of {contract} adds a fee or a consent requirement when use exceeds a threshold?",
    "Ip Ownership Assignment": "Which clause of {contract} makes intellectual property created by one party the property of the other?",
    "Joint Ip Ownership": "Which clause of {contract} provides for joint ownership of intellectual property?",
    "License Grant": "What license does one party grant the other under {contract}?",
    "Non-Transferable License": "Which clause of {contract} limits a party's ability to transfer its license?",
    "Affiliate License-Licensor": "Which clause of {contract} licenses intellectual property of the licensor's affiliates?",
    "Affiliate License-Licensee": "Which clause of {contract} extends a license to the licensee's affiliates?",
    "Unlimited/All-You-Can-Eat-License": "Which clause of {contract} grants an enterprise-wide or unlimited usage license?",
    "Irrevocable Or Perpetual License": "Which clause of {contract} grants an irrevocable or perpetual license?",
    "Source Code Escrow": "Which clause of {contract} requires source code to be deposited in escrow?",
    "Post-Termination Services": "What obligations continue after {contract} is terminated or expires?",
    "Audit Rights": "Which clause of {contract} lets a party audit the other party's books, records or premises?",
    "Uncapped Liability": "Which clause of {contract} leaves a party's liability uncapped for a breach?",
    "Cap On Liability": "Which clause of {contract} caps a party's liability or limits the time to bring claims?",
    "Liquidated Damages": "Which clause of {contract} awards liquidated damages or a termination fee?",
    "Warranty Duration": "How long does the warranty under {contract} last?",
    "Insurance": "What insurance must a party maintain under {contract}?",
    "Covenant Not To Sue": "Which clause of {contract} restricts a party from challenging the other's intellectual property or suing it?",
    "Third Party Beneficiary": "Which clause of {contract} lets a non-party enforce rights as a third-party beneficiary?",
}
