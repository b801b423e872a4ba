"""Tables as R's write.csv and pandas' to_csv write them by default, through the commands:
the unnamed first column (row names, an index) is a row ID that predict copies into its
output, a separator ending every line adds no column, and a header repeated among the rows
(files joined with cat) is refused naming its line."""

from __future__ import annotations

import csv
import io

# mtcars (R's datasets) as write.csv(mtcars) writes it: row names under an empty name
MTCARS = """\
"","mpg","cyl","disp","hp","am"
"Mazda RX4",21,6,160,110,1
"Mazda RX4 Wag",21,6,160,110,1
"Datsun 710",22.8,4,108,93,1
"Hornet 4 Drive",21.4,6,258,110,0
"Hornet Sportabout",18.7,8,360,175,0
"Valiant",18.1,6,225,105,0
"Duster 360",14.3,8,360,245,0
"Merc 240D",24.4,4,146.7,62,0
"Merc 230",22.8,4,140.8,95,0
"Fiat 128",32.4,4,78.7,66,1
"Honda Civic",30.4,4,75.7,52,1
"Toyota Corolla",33.9,4,71.1,65,1
"""


def test_r_row_names_are_a_row_id_that_predict_copies(cli, tmp_path):
    data = tmp_path / "mtcars.csv"
    data.write_text(MTCARS)
    trained = cli("train", data, "-t", "am", "-o", tmp_path / "m.bk")
    assert trained.exit_code == 0, trained.stderr
    assert "column 'row_names' looks like a row ID (the header's unnamed first column" in (
        trained.stderr
    )
    assert "rows × 4 columns" in trained.stdout  # mpg, cyl, disp, hp: not the names
    predicted = cli("predict", tmp_path / "m.bk", data)
    assert predicted.exit_code == 0, predicted.stderr
    rows = list(csv.reader(io.StringIO(predicted.stdout)))
    assert rows[0][:2] == ["row_names", "label"]
    assert [r[0] for r in rows[1:3]] == ["Mazda RX4", "Mazda RX4 Wag"]


def test_a_trailing_separator_and_a_repeated_header_through_the_commands(cli, tmp_path):
    lines = MTCARS.splitlines()
    trailing = tmp_path / "trailing.csv"
    trailing.write_text("".join(f"{line},\n" for line in lines))
    plain = tmp_path / "plain.csv"
    plain.write_text(MTCARS)
    for name, path in (("trailing", trailing), ("plain", plain)):
        result = cli("train", path, "-t", "am", "-o", tmp_path / f"{name}.bk")
        assert result.exit_code == 0, result.stderr
    same = [cli("predict", tmp_path / "plain.bk", p).stdout for p in (plain, trailing)]
    assert same[0] == same[1]
    joined = tmp_path / "joined.csv"
    joined.write_text(MTCARS + MTCARS)
    for command in ("train", "evaluate"):
        args = ["-o", tmp_path / "j.bk"] if command == "train" else []
        result = cli(command, joined, "-t", "am", *args)
        assert result.exit_code == 2
        assert "joined.csv, line 14: repeats the header line" in result.stderr
    result = cli("predict", tmp_path / "plain.bk", joined)
    assert result.exit_code == 2
    assert "line 14: repeats the header line" in result.stderr


def test_a_target_written_na_is_named_with_its_row_in_one_sentence(cli, tmp_path):
    data = tmp_path / "unlabelled.csv"
    data.write_text(MTCARS.replace('"Datsun 710",22.8,4,108,93,1', '"Datsun 710",22.8,4,108,93,NA'))
    result = cli("train", data, "-t", "am", "-o", tmp_path / "m.bk")
    assert result.exit_code == 2
    assert (
        "unlabelled.csv: row 3 has no value in the target column 'am' (1 row has none); "
        "label every row or remove the unlabelled ones"
    ) in result.stderr


def test_decimal_commas_in_a_comma_separated_file_are_named(cli, tmp_path):
    data = tmp_path / "comma.csv"
    rows = [f'"{4 + i % 3},{i % 10}","{i % 7}",{"ab"[i % 2]}' for i in range(30)]
    data.write_text("length,count,y\n" + "\n".join(rows) + "\n")
    result = cli("train", data, "-t", "y", "-o", tmp_path / "m.bk")
    assert result.exit_code == 0, result.stderr
    assert (
        "note: column 'length' holds numbers with decimal commas written as text (4,0): each "
        "value is a category, not a number; write decimal points, or separate the fields with "
        "';' (as R's write.csv2)"
    ) in result.stderr
    assert "column 'count'" not in result.stderr  # whole numbers: a number column
    assert "row ID" not in result.stderr  # a different measurement in every row is no ID


# iris's first rows as R's write.table(iris, sep = "\t", row.names = FALSE) writes them
_CLASSES = ("setosa", "virginica")
IRIS_TSV = '"Sepal.Length"\t"Sepal.Width"\t"Petal.Length"\t"Petal.Width"\t"Species"\n' + "".join(
    f'{5 + i % 3}.{i % 10}\t3.{i % 7}\t{1 + 4 * (i % 2)}.4\t0.{i % 5}\t"{_CLASSES[i % 2]}"\n'
    for i in range(24)
)


def test_r_quoted_tsv_reads_without_the_quotes(cli, tmp_path):
    data = tmp_path / "iris.tsv"
    data.write_text(IRIS_TSV)
    result = cli("train", data, "-t", "Species", "-o", tmp_path / "m.bk")
    assert result.exit_code == 0, result.stderr
    assert "classes: setosa 12, virginica 12" in result.stdout
    assert '"' not in result.stdout.split("families: ")[1]
    predicted = cli("predict", tmp_path / "m.bk", data)
    assert predicted.exit_code == 0, predicted.stderr
    assert predicted.stdout.splitlines()[1].startswith("setosa,")


def test_r_write_table_row_names_are_a_row_id_that_predict_copies(cli, tmp_path):
    # R's write.table(iris, sep = "\t"): row names, and no name over them in the header
    data = tmp_path / "rt.tsv"
    lines = IRIS_TSV.splitlines()
    data.write_text(lines[0] + "\n" + "".join(f'"{i}"\t{r}\n' for i, r in enumerate(lines[1:])))
    result = cli("train", data, "-t", "Species", "-o", tmp_path / "m.bk")
    assert result.exit_code == 0, result.stderr
    assert "column 'row_names' looks like a row ID" in result.stderr
    plain = tmp_path / "plain.tsv"
    plain.write_text(IRIS_TSV)
    assert cli("train", plain, "-t", "Species", "-o", tmp_path / "p.bk").exit_code == 0
    predicted = cli("predict", tmp_path / "m.bk", data)
    assert predicted.exit_code == 0, predicted.stderr
    rows = predicted.stdout.splitlines()
    assert rows[0].startswith("row_names,")
    assert rows[1].startswith("0,setosa,")
    # the same model as from the file without row names
    without = cli("predict", tmp_path / "p.bk", plain).stdout.splitlines()
    assert [r.split(",", 1)[1] for r in rows[1:]] == without[1:]
