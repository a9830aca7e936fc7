"""Find the shared data folder and read CUAD v1: contract texts joined to their clause annotations.

The data folder is ``$AGENTTUNE_DATA_DIR`` when set, else ``../shared/data`` next to the repository root.
CUAD's ``master_clauses.csv`` names about a dozen contracts slightly differently from their text files
(``&`` and ``'`` written as ``_``, a stray trailing quote or dash, a space before the extension, Unicode
composed differently); :func:`filename_key` folds those differences away.
"""

from __future__ import annotations

import ast
import csv
import os
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
DATA_DIR_ENV = "AGENTTUNE_DATA_DIR"
HOW_TO_GET_DATA = (
    "Set AGENTTUNE_DATA_DIR to the folder holding cuad_v1/ and legalbench_rag_sample/ (default: ../shared/data "
    "next to the repository). CUAD v1 is at https://www.atticusprojectai.org/cuad (CC BY 4.0); the "
    "LegalBench-RAG sample is described in that folder's README.md."
)


def data_dir() -> Path:
    """The shared data folder (``$AGENTTUNE_DATA_DIR`` or ``<repo>/../shared/data``); it must exist."""
    path = Path(os.environ.get(DATA_DIR_ENV) or REPO_ROOT / ".." / "shared" / "data").resolve()
    if not path.is_dir():
        raise FileNotFoundError(f"data folder {path} does not exist. {HOW_TO_GET_DATA}")
    return path


def cuad_dir() -> Path:
    """``<data_dir>/cuad_v1``, checked to hold the CSV and the text folder."""
    path = data_dir() / "cuad_v1"
    for needed in ("master_clauses.csv", "full_contract_txt"):
        if not (path / needed).exists():
            raise FileNotFoundError(f"{path / needed} is missing. {HOW_TO_GET_DATA}")
    return path


def filename_key(name: str) -> str:
    """A key under which a CSV file name and its text file's name agree.

    >>> filename_key("MOELIS&CO_03_24_2014-EX-10.19-STRATEGIC ALLIANCE AGREEMENT.PDF")
    'moelis_co_03_24_2014-ex-10.19-strategic alliance agreement'
    >>> filename_key("KALLOINC-AGREEMENT.PDF'") == filename_key("KALLOINC-AGREEMENT.txt")
    True
    """
    key = unicodedata.normalize("NFC", name).strip().strip("'\"").strip()
    key = re.sub(r"\.(pdf|txt)$", "", key, flags=re.IGNORECASE)
    key = re.sub(r"[&'’]", "_", key)
    key = re.sub(r"\s+", " ", key)
    return key.rstrip(" -_").lower()


@dataclass(frozen=True)
class CuadContract:
    """One contract: ``doc_id`` is its text file's stem; ``clauses`` maps a CSV category to its quotes."""

    doc_id: str
    filename: str
    text: str
    clauses: dict[str, list[str]] = field(default_factory=dict)
    answers: dict[str, str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The annotated document name, or the file stem when none was annotated."""
        names = self.clauses.get("Document Name") or [self.doc_id]
        title = " ".join(names[0].split())
        return title.title() if title.isupper() else title

    @property
    def party_names(self) -> list[str]:
        """The parties' names from the CSV answer column, without their defined-term aliases.

        ``'Birch First Inc. ("Company"); Mount Co. ("MA")'`` gives ``['Birch First Inc.', 'Mount Co.']``.
        """
        names = []
        for part in self.answers.get("Parties", "").split(";"):
            name = " ".join(re.sub(r"\(.*?\)|[(\"“”]", " ", part).split()).strip(" ,")
            if name and name not in names:
                names.append(name)
        return names


def read_master_clauses(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The 41 category names (CSV column order) and the rows of ``master_clauses.csv``."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    categories = header[1::2]
    return categories, [dict(zip(header, row, strict=True)) for row in body]


def match_text_files(filenames: list[str], text_dir: Path) -> dict[str, Path]:
    """Map each CSV file name to its text file; raises naming every name that found no file."""
    by_key = {filename_key(p.name): p for p in text_dir.glob("*.txt")}
    matched = {name: by_key.get(filename_key(name)) for name in filenames}
    missing = [name for name, path in matched.items() if path is None]
    if missing:
        raise FileNotFoundError(f"no text file in {text_dir} for {len(missing)} CSV rows: {missing[:5]}")
    return {name: path for name, path in matched.items() if path is not None}


@cache
def load_contracts() -> tuple[CuadContract, ...]:
    """All 510 CUAD contracts with their annotations, in CSV order (cached per process)."""
    root = cuad_dir()
    categories, rows = read_master_clauses(root / "master_clauses.csv")
    header = list(rows[0])
    answer_columns = dict(zip(header[1::2], header[2::2], strict=True))
    paths = match_text_files([row["Filename"] for row in rows], root / "full_contract_txt")
    contracts = []
    for row in rows:
        path = paths[row["Filename"]]
        contracts.append(
            CuadContract(
                doc_id=unicodedata.normalize("NFC", path.stem),
                filename=row["Filename"],
                text=path.read_text(encoding="utf-8"),
                clauses={c: [str(q) for q in ast.literal_eval(row[c] or "[]")] for c in categories},
                answers={c: row[answer_columns[c]].strip() for c in categories},
            )
        )
    return tuple(contracts)


def contracts_by_id() -> dict[str, CuadContract]:
    """``doc_id -> contract`` for all of CUAD."""
    return {c.doc_id: c for c in load_contracts()}
