#!/usr/bin/env python3
"""Checks that a lab page quotes its lab's output: every block of the page introduced by a line
<!-- lab-output --> is found, line for line, in the output the lab printed (test/labs-test.sh).
Words must be equal; numbers may differ by a relative tolerance (so that a small model change
does not fail the page, while one that changes what the page says does; the test asserts the
page's orderings and claims separately).

  test/lab-page-check.py PAGE.md OUTPUT.txt [TOLERANCE]     (TOLERANCE: 0.05 = 5 %)

Exit status 0 if every quoted block matches, 1 with one line per difference otherwise.
"""

import re
import sys

NUMBER = re.compile(r"^[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?$")


def quoted_blocks(page):
    """The fenced blocks that follow a <!-- lab-output --> line, as lists of lines."""
    blocks = []
    lines = page.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "<!-- lab-output -->":
            j = i + 1
            # Fences may be indented (a block inside a list item).
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                j += 1
            k = j + 1
            while k < len(lines) and not lines[k].lstrip().startswith("```"):
                k += 1
            if j >= len(lines) or k >= len(lines):
                sys.exit(f"lab-page-check: the marker on line {i + 1} has no fenced block")
            blocks.append((j + 2, lines[j + 1:k]))
            i = k
        i += 1
    return blocks


def same_line(quoted, printed, tolerance):
    """None if the lines agree, else what differs."""
    a, b = quoted.split(), printed.split()
    if len(a) != len(b):
        return "another number of fields"
    for x, y in zip(a, b):
        if NUMBER.match(x) and NUMBER.match(y):
            fx, fy = float(x), float(y)
            # At least the rounding of the page's last digit (0.05 for "6564.0", 0.5 for "420").
            decimals = len(x.split(".")[1]) if "." in x and "e" not in x.lower() else 0
            slack = max(tolerance * abs(fy), 0.5 * 10 ** -decimals + 1e-9)
            if abs(fx - fy) > slack:
                return f"{x} on the page, {y} in the output"
        elif x != y:
            return f"'{x}' on the page, '{y}' in the output"
    return None


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    page = open(sys.argv[1]).read()
    output = open(sys.argv[2]).read().splitlines()
    tolerance = float(sys.argv[3]) if len(sys.argv) == 4 else 0.05
    blocks = quoted_blocks(page)
    if not blocks:
        sys.exit(f"lab-page-check: {sys.argv[1]} quotes no output (<!-- lab-output -->)")
    problems = []
    for first_line, block in blocks:
        # The block's first line (a header, unique in the output) anchors it.
        starts = [n for n, line in enumerate(output) if line.split() == block[0].split()]
        if not starts:
            problems.append(f"{sys.argv[1]}:{first_line}: '{block[0].strip()}' is not in the "
                            f"output")
            continue
        start = starts[0]
        for offset, quoted in enumerate(block):
            line_number = first_line + offset
            if start + offset >= len(output):
                problems.append(f"{sys.argv[1]}:{line_number}: the output ends before "
                                f"'{quoted.strip()}'")
                break
            difference = same_line(quoted, output[start + offset], tolerance)
            if difference:
                problems.append(f"{sys.argv[1]}:{line_number}: {difference}: "
                                f"'{quoted.strip()}' vs '{output[start + offset].strip()}'")
    for problem in problems:
        print(f"lab-page-check: {problem}")
    if not problems:
        print(f"lab-page-check: {sys.argv[1]}: {sum(len(b) for _, b in blocks)} quoted lines "
              f"match the output (tolerance {tolerance:g})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
