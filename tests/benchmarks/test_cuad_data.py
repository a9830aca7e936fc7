import pytest

from agenttune.benchmarks.cuad import data
from agenttune.benchmarks.cuad.data import (
    cuad_dir,
    filename_key,
    load_contracts,
    match_text_files,
    read_master_clauses,
)


def test_every_csv_row_maps_to_its_own_text_file():
    root = cuad_dir()
    _, rows = read_master_clauses(root / "master_clauses.csv")
    names = [row["Filename"] for row in rows]
    matched = match_text_files(names, root / "full_contract_txt")
    assert len(rows) == len(matched) == 510
    assert len(set(matched.values())) == 510
    differing = [n for n in names if n.rstrip("'")[:-4] + ".txt" != matched[n].name]
    assert len(differing) == 11  # plus KALLOINC's stray quote, stripped above: the 12 the data README lists


@pytest.mark.parametrize(
    ("csv_name", "txt_name"),
    [
        (
            "MACY'S,INC_05_11_2020-EX-99.4-JOINT FILING AGREEMENT.PDF",
            "MACY_S,INC_05_11_2020-EX-99.4-JOINT FILING AGREEMENT.txt",
        ),
        (
            "KALLOINC_11_03_2011-EX-10.1-STRATEGIC ALLIANCE AGREEMENT.PDF'",
            "KALLOINC_11_03_2011-EX-10.1-STRATEGIC ALLIANCE AGREEMENT.txt",
        ),
        (
            "ELECTRAMECCANICA VEHICLES CORP. - Manufacturing Agreement .PDF",
            "ELECTRAMECCANICA VEHICLES CORP. - Manufacturing Agreement.txt",
        ),
        ("LECLANCHE\u0301 S.A. - X.PDF", "LECLANCH\u00c9 S.A. - X.txt"),
        (
            "NETGEAR-AGREEMENT BETWEEN INGRAM MICRO AND NETGEAR-.pdf",
            "NETGEAR-AGREEMENT BETWEEN INGRAM MICRO AND NETGEAR.txt",
        ),
    ],
)
def test_filename_key_folds_the_known_differences(csv_name, txt_name):
    assert filename_key(csv_name) == filename_key(txt_name)


def test_contracts_carry_text_and_41_categories(contracts):
    assert all(c.text and len(c.clauses) == 41 and len(c.answers) == 41 for c in contracts)
    assert contracts[0].party_names[:1] == ["Birch First Global Investments Inc."]
    assert load_contracts()[0] is contracts[0]


def test_missing_data_dir_says_how_to_get_the_data(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTTUNE_DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="AGENTTUNE_DATA_DIR"):
        data.data_dir()
    monkeypatch.setenv("AGENTTUNE_DATA_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="atticusprojectai"):
        data.cuad_dir()
