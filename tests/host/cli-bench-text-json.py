#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a bench report's text against its JSON, value by value.

usage: cli-bench-text-json.py TEXT JSON

TEXT is what 'abpath bench --from FILE' prints, JSON what the same with -j
prints.  The text is read back into a tree by the layout of output.c's
renderer alone (a "key: value" line, a "key:" heading over its members
two columns in, a table: a header line, then a row per run or one per
member of the modes' objects, headings indented by two per level, and
after it the table's other members), and every value it shows is looked
up in the JSON at the same place: a number must be the JSON's rounded to
the digits the text shows, a word the JSON's word, "-" a null or nothing.
Prints what it compared, and each difference; exits 1 on any.
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


def main():
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
