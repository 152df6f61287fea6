#!/usr/bin/env python3
"""Prints the functions of one binary that callgrind profiles saw run, one mangled name a line, sorted: the input of
`link/symbol-order.txt` (docs/engine.md, "Code layout").

    link/executed-functions.py uploader-tui callgrind.out.* > link/symbol-order.txt

The profiles must come from `valgrind --tool=callgrind --demangle=no` runs of a release binary whose name contains
the first argument (strip its debug sections first: valgrind cannot read them)."""
import re
import sys

NAME = re.compile(r"(c?ob|c?fn)=\((\d+)\)(?: (.*))?")


def executed(path: str, binary: str) -> set[str]:
    objects: dict[str, str] = {}
    functions: dict[str, str] = {}
    current = None
    found = set()
    with open(path, errors="replace") as profile:
        for line in profile:
            match = NAME.match(line.rstrip("\n"))
            if not match:
                continue
            kind, number, name = match.groups()
            if kind in ("ob", "cob"):
                if name:
                    objects[number] = name
                if kind == "ob":
                    current = objects.get(number)
            else:
                if name:
                    functions[number] = name
                if kind == "fn" and current and binary in current.rsplit("/", 1)[-1]:
                    found.add(functions[number])
    # callgrind marks recursion levels with 'N; unnamed code shows as an address, which no linker can order.
    return {re.sub(r"'\d+$", "", name) for name in found if not name.startswith("0x")}


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    names = set()
    for path in sys.argv[2:]:
        names |= executed(path, sys.argv[1])
    sys.stdout.write("".join(name + "\n" for name in sorted(names)))


if __name__ == "__main__":
    main()
