#!/usr/bin/env python3
"""Lists every `public` or `open` declaration in Sources/ that has no `///` doc comment.

A declaration counts as documented when the line before it (skipping attribute lines such as
`@discardableResult` or `@available(...)`) ends a `///` comment or a `/** ... */` block. Run by
.ci/run; exits 1 and prints `file:line: declaration` for each undocumented symbol.

Usage: python3 scripts/doccomments.py [folder ...]   (default: Sources)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# `public`/`open` after optional attributes and other modifiers, at the start of a line.
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:final|override|static|class|nonisolated|required|convenience|"
    r"mutating|indirect|dynamic|lazy|weak|unowned|private\(set\)|fileprivate\(set\)|internal\(set\))\s+)*"
    r"(?:public|open)\b(?!\s*\()"
)
ATTRIBUTE = re.compile(r"^\s*@\w+(?:\(.*\))?\s*$")


def undocumented(path: pathlib.Path):
    lines = path.read_text().splitlines()
    in_block_comment = False
    in_string = False
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.count('"""') % 2 == 1:
            in_string = not in_string
            continue
        if in_string:
            continue
        if in_block_comment:
            if "*/" in stripped:
                in_block_comment = False
            continue
        if stripped.startswith("/*") and "*/" not in stripped:
            in_block_comment = True
            continue
        if not DECLARATION.match(line):
            continue
        previous = number - 1
        while previous >= 0 and ATTRIBUTE.match(lines[previous]):
            previous -= 1
        before = lines[previous].strip() if previous >= 0 else ""
        if not (before.startswith("///") or before.endswith("*/")):
            yield number + 1, stripped


def main() -> int:
    folders = [ROOT / arg for arg in sys.argv[1:]] or [ROOT / "Sources"]
    missing = []
    for folder in folders:
        for path in sorted(folder.rglob("*.swift")):
            for number, declaration in undocumented(path):
                shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                missing.append(f"{shown}:{number}: {declaration}")
    if missing:
        print("public or open declarations without a /// doc comment:")
        print("\n".join(missing))
        return 1
    print("every public and open declaration has a doc comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
