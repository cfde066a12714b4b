#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a bench report's text against its JSON, value by value.

usage: cli-bench-text-json.py TEXT JSON
       cli-bench-text-json.py --suite TEXT JSON

TEXT is what 'abpath bench --from FILE' prints, JSON what the same with -j
prints.  The text is read back into a tree by the layout of output.c's
renderer alone (a "key: value" line, a "key:" heading over its members
two columns in, a table: a header line, then a row per run or one per
member of the modes' objects, headings indented by two per level, and
after it the table's other members), and every value it shows is looked
up in the JSON at the same place: a number must be the JSON's rounded to
the digits the text shows, a word the JSON's word, "-" a null or nothing.
Prints what it compared, and each difference; exits 1 on any.

With --suite, TEXT is a suite result's Markdown tables and JSON its -j,
whose "tables" hold the same tables: each heading, column head and cell
must be the text's, each number of a cell ("value", "ci95", "p", the
counts) must be what its text shows, rounded to its digits, each
paragraph under a table must be the text's, and each verdict of the
stopping rule must be the text's line, with its numbers; no line of the
text may be left over.
"""
import json
import re
import sys

KEY = re.compile(r"^(\S+):(?: +(.*))?$")


class Layout(Exception):
    pass


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def parse_members(lines, i, ind, path, out):
    """Members of an object at indentation ind, from lines[i]."""
    while i < len(lines) and indent_of(lines[i]) >= ind:
        if indent_of(lines[i]) > ind:
            raise Layout("line %d: indented under nothing: %r" % (i + 1, lines[i]))
        m = KEY.match(lines[i][ind:])
        if not m:
            raise Layout("line %d: not a member: %r" % (i + 1, lines[i]))
        key, value = m.group(1), m.group(2)
        i += 1
        if value is not None:
            out.append((path + (key,), value))
            continue
        if i < len(lines) and indent_of(lines[i]) == ind + 2 and \
                KEY.match(lines[i][ind + 2:]):
            i = parse_members(lines, i, ind + 2, path + (key,), out)
        elif i < len(lines) and indent_of(lines[i]) >= ind + 2:
            i = parse_table(lines, i, ind + 2, path + (key,), out)
        else:
            raise Layout("line %d: %s: a heading over nothing" % (i, key))
    return i


def split_cells(text, n):
    cells = re.split(r" {2,}", text.strip(), maxsplit=n - 1)
    if len(cells) != n:
        raise Layout("%d cells where the header has %d: %r" % (len(cells), n, text))
    return cells


def parse_table(lines, i, ind, path, out):
    """A table at ind, its header at lines[i]; then its other members."""
    header = lines[i][ind:]
    keyed = header.startswith(" ")
    cols = header.split()
    i += 1
    row = 0
    heads = []
    while i < len(lines) and indent_of(lines[i]) >= ind:
        body = lines[i][ind:]
        if not body.startswith(" ") and KEY.match(body):
            break
        i += 1
        if not keyed:
            # A row per element of an array: cells only.
            for col, cell in zip(cols, split_cells(body, len(cols))):
                out.append((path + (row, col), cell))
            row += 1
            continue
        depth = indent_of(body) // 2
        words = body.strip().split(None, 1)
        heads = heads[:depth]
        if len(words) == 1:
            heads.append(words[0])
            continue
        cells = split_cells(words[1], len(cols))
        for col, cell in zip(cols, cells):
            out.append((path + (col,) + tuple(heads) + (words[0],), cell))
    if not keyed:
        out.append((path + ("#rows",), str(row)))
    return parse_members(lines, i, ind, path, out)


MISSING = object()


def lookup(tree, path):
    for k in path:
        if k == "#rows":
            return len(tree) if isinstance(tree, list) else MISSING
        if isinstance(tree, list) and isinstance(k, int) and k < len(tree):
            tree = tree[k]
        elif isinstance(tree, dict) and k in tree:
            tree = tree[k]
        else:
            return MISSING
    return tree


NUMBER = re.compile(r"^-?[0-9]+(\.([0-9]+))?$")


def same_number(text, value):
    """text shows value: value rounded to text's decimals reads as text."""
    m = NUMBER.match(text)
    if not m or isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    decimals = len(m.group(2) or "")
    return "%.*f" % (decimals, value) == text


def compare(text, value, counts):
    """Whether text shows value; counts the numbers and words compared."""
    if value is MISSING or value is None:
        return text == "-"
    if isinstance(value, bool):
        counts["words"] += 1
        return text == ("yes" if value else "no")
    if isinstance(value, (int, float)):
        counts["numbers"] += 1
        return same_number(text, value)
    if isinstance(value, str):
        counts["words"] += 1
        return text == value
    if isinstance(value, list):
        # An interval without both ends is none.
        if not value or (text == "-" and None in value):
            return text == "-"
        if "–" in text and len(value) == 2:
            parts = text.split("–")
        else:
            parts = text.split(" ")
        if len(parts) != len(value):
            # Words with spaces in them: the line as a whole.
            counts["words"] += 1
            return all(isinstance(v, str) for v in value) and \
                text == " ".join(value)
        return all(compare(p, v, counts) for p, v in zip(parts, value))
    return False


def shows(text, value, counts):
    """A number of a suite's cell: "–" for null, else value rounded."""
    if value is None:
        return text == "–"
    counts["numbers"] += 1
    return same_number(text, value)


def suite_cell(kind, text, cell, counts):
    """Whether a cell's text shows every number of its JSON."""
    if kind in ("param", "source"):
        return True
    if kind == "ratio_ci":
        m = re.match(r"^(\S+) \[(\S+)–(\S+)\]$", text)
        ci = cell.get("ci95")
        if m and ci:
            return shows(m.group(1), cell.get("value"), counts) and \
                shows(m.group(2), ci[0], counts) and \
                shows(m.group(3), ci[1], counts)
        return ci is None and shows(text, cell.get("value"), counts)
    if kind == "p":
        p = cell.get("p")
        if text.startswith("<"):
            counts["numbers"] += 1
            return p is not None and p < float(text[1:])
        return shows(text, p, counts)
    if kind == "flagged":
        if "runs" not in cell:
            return text == "–"
        counts["numbers"] += 2
        return text == "%d/%d" % (cell["flagged"], cell["runs"])
    if kind == "stalls":
        if "runs" not in cell:
            return text == "–"
        counts["numbers"] += 3
        if not cell["stalls"]:
            return text == "0"
        return text == "%d in %d/%d runs" % (cell["stalls"], cell["runs_with"],
                                             cell["runs"])
    return shows(text, cell.get("value"), counts)


def verdict_numbers(line, v, counts):
    """A rule's verdict line shows its value and interval, either way up."""
    m = re.search(r"(\S+)x (?:slower|faster|worse|better) \([0-9.]+% "
                  r"sequential CI (\S+)–(\S+)\)", line) or \
        re.search(r"legacy/optimized (\S+) \([0-9.]+% sequential CI "
                  r"(\S+)–(\S+)\)", line)
    if not m or v.get("value") is None or not v.get("ci"):
        return True
    lo, hi = v["ci"]
    ways = [(v["value"], lo, hi), (1 / v["value"], 1 / hi, 1 / lo)]
    counts["numbers"] += 3
    return any(all(same_number(t, x) for t, x in zip(m.groups(), w))
               for w in ways)


def cells_of(line):
    if not (line.startswith("| ") and line.endswith(" |")):
        raise Layout("not a table row: %r" % line)
    return line[2:-2].split(" | ")


def main_suite(text_file, json_file):
    with open(text_file, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    with open(json_file, encoding="utf-8") as f:
        tables = json.load(f).get("tables")
    counts = {"numbers": 0, "words": 0}
    bad = []
    i = 0
    if not isinstance(tables, list):
        print("the JSON has no \"tables\"")
        return 1
    try:
        for n, t in enumerate(tables):
            where = "tables.%d" % n
            counts["words"] += 1
            if i >= len(lines) or lines[i] != "### " + t["heading"]:
                raise Layout("%s: heading %r, text %r" % (
                    where, t["heading"], lines[i] if i < len(lines) else None))
            heads = [c["head"] for c in t["columns"]]
            counts["words"] += len(heads)
            if cells_of(lines[i + 1]) != heads:
                bad.append("%s.columns: text %r, JSON %r" % (where, lines[i + 1], heads))
            align = ["---" if c["kind"] in ("param", "source", "ratio_ci")
                     else "---:" for c in t["columns"]]
            if lines[i + 2] != "|" + "|".join(align) + "|":
                bad.append("%s: alignment %r" % (where, lines[i + 2]))
            i += 3
            for r, row in enumerate(t["rows"]):
                texts = cells_of(lines[i])
                i += 1
                if len(texts) != len(row["cells"]):
                    bad.append("%s.rows.%d: %d cells, JSON %d" % (
                        where, r, len(texts), len(row["cells"])))
                    continue
                for c, (text, cell) in enumerate(zip(texts, row["cells"])):
                    counts["words"] += 1
                    kind = t["columns"][c]["kind"]
                    if text != cell["text"] or not suite_cell(kind, text, cell, counts):
                        bad.append("%s.rows.%d.cells.%d (%s): text %r, JSON %s" % (
                            where, r, c, kind, text, json.dumps(cell, ensure_ascii=False)))
            if not t["rows"]:
                if lines[i] != "| (no points) |":
                    bad.append("%s: no rows, text %r" % (where, lines[i]))
                i += 1
            for k, note in enumerate(t["notes"]):
                counts["words"] += 1
                if lines[i] != note["text"]:
                    bad.append("%s.notes.%d: text %r, JSON %r" % (
                        where, k, lines[i], note["text"]))
                i += 1
                for m, v in enumerate(note.get("verdicts", [])):
                    counts["words"] += 1
                    line = "- %s: %s" % (v["param_text"], v["verdict"])
                    if lines[i] != line or not verdict_numbers(lines[i], v, counts):
                        bad.append("%s.notes.%d.verdicts.%d: text %r, JSON %s" % (
                            where, k, m, lines[i], json.dumps(v, ensure_ascii=False)))
                    i += 1
        if i != len(lines):
            raise Layout("text left over at line %d: %r" % (i + 1, lines[i]))
    except (Layout, IndexError, KeyError) as e:
        print("cannot read the text: %s" % (e or "it stops early"))
        return 1
    for b in bad:
        print(b)
    print("compared %d tables: %d numbers, %d words; %d differ" %
          (len(tables), counts["numbers"], counts["words"], len(bad)))
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--suite":
        return main_suite(sys.argv[2], sys.argv[3])
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    with open(sys.argv[2], encoding="utf-8") as f:
        tree = json.load(f)
    shown = []
    try:
        if parse_members(lines, 0, 0, (), shown) != len(lines):
            raise Layout("text left over")
    except Layout as e:
        print("cannot read the text: %s" % e)
        return 1
    counts = {"numbers": 0, "words": 0}
    bad = 0
    for path, text in shown:
        value = lookup(tree, path)
        if not compare(text, value, counts):
            bad += 1
            print("%s: text %r, JSON %s" % (".".join(map(str, path)), text,
                  "nothing" if value is MISSING else json.dumps(value)))
    print("compared %d values: %d numbers, %d words; %d differ" %
          (len(shown), counts["numbers"], counts["words"], bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
