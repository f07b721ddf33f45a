#!/usr/bin/env python3
"""Lists every Swift function longer than a limit (60 lines by default) and exits 1 when there is one.

A function is a `func`, `init`, `deinit` or `subscript` with a body; its length runs from the line of its
keyword to the line of its closing brace, both included (attributes and doc comments above it do not count).
Comments and string literals (multi-line and raw ones, and the code inside their interpolations) are read
as such, so a brace in them does not count; a requirement without a body (in a protocol) is skipped.

Usage: python3 scripts/function_length.py [--limit N] PATH...   (a folder is searched for *.swift files)
"""

import argparse
import os
import re
import sys

LIMIT = 60

# A declaration keyword, after any modifiers, at the start of a line.
DECLARATION = re.compile(
    r"^[ \t]*(?:(?:@\w+(?:\([^()\n]*\))?|public|private|fileprivate|internal|package|open|static|class|final"
    r"|override|mutating|nonmutating|convenience|required|nonisolated|dynamic|optional|lazy"
    r"|(?:private|fileprivate|internal|package|public)\(set\))[ \t]+)*"
    r"(?P<keyword>func[ \t]+(?P<name>[^\s(<]+)|init[?!]?(?=[ \t]*[(<])|deinit\b|subscript(?=[ \t]*[(<]))",
    re.MULTILINE,
)

# A line that starts another declaration (or closes the enclosing type): a requirement had no body.
NEXT_DECLARATION = re.compile(
    r"^\s*(?:@\w+|func\b|init\b|deinit\b|subscript\b|var\b|let\b|case\b|struct\b|class\b|enum\b|protocol\b"
    r"|extension\b|typealias\b|associatedtype\b|actor\b|public\b|private\b|fileprivate\b|internal\b"
    r"|package\b|open\b|static\b|mutating\b|nonisolated\b|#if\b|#else\b|#endif\b|}|$)"
)

RAW_STRING = re.compile(r'(#+)"')


def code_only(text):
    """`text` with every comment and string literal blanked (newlines kept), so that only code is left."""
    out = list(text)
    i, n = 0, len(text)
    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    def skip_string(i, hashes=0):
        """`i` is at a string's opening quotes, after `hashes` #s; returns the index after the string,
        blanking it except for the code of its interpolations, which is scanned as code."""
        multiline = text.startswith('"""', i)
        quote = '"""' if multiline else '"'
        closing = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        j = i + len(quote)
        start = j
        while j < n:
            if text.startswith(escape + "(", j):
                blank(start, j)
                j = skip_code(j + len(escape) + 1, until_paren=True)
                start = j
                continue
            if text.startswith(escape, j):
                j += len(escape) + 1
                continue
            if text.startswith(closing, j):
                blank(start, j)
                return j + len(closing)
            if text[j] == "\n" and not multiline:
                break
            j += 1
        blank(start, j)
        return j

    def skip_code(i, until_paren=False):
        """Scans code from `i`; with `until_paren`, stops after the `)` that closes an interpolation."""
        depth = 0
        while i < n:
            c = text[i]
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank(i, end)
                i = end
            elif text.startswith("/*", i):
                level, j = 1, i + 2
                while j < n and level:
                    if text.startswith("/*", j):
                        level, j = level + 1, j + 2
                    elif text.startswith("*/", j):
                        level, j = level - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
            elif c == '"':
                i = skip_string(i)
            elif c == "#" and RAW_STRING.match(text, i):
                hashes = len(RAW_STRING.match(text, i).group(1))
                i = skip_string(i + hashes, hashes)
            elif until_paren and c == "(":
                depth += 1
                i += 1
            elif until_paren and c == ")":
                if depth == 0:
                    return i + 1
                depth -= 1
                i += 1
            else:
                i += 1
        return i

    skip_code(0)
    return "".join(out)


def body_span(code, start):
    """The offsets of the `{` and `}` of the body of the declaration whose keyword ends at `start`, or None."""
    depth = 0
    i, n = start, len(code)
    while i < n:
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c == "{":
            break
        elif depth == 0 and c == "}":
            return None
        elif depth == 0 and c == "\n":
            line_end = code.find("\n", i + 1)
            next_line = code[i + 1 : n if line_end < 0 else line_end]
            if next_line.strip() and NEXT_DECLARATION.match(next_line) and not next_line.strip().startswith("{"):
                return None
        i += 1
    else:
        return None
    open_at, level = i, 0
    while i < n:
        if code[i] == "{":
            level += 1
        elif code[i] == "}":
            level -= 1
            if level == 0:
                return open_at, i
        i += 1
    return None


def long_functions(text, limit=LIMIT):
    """(line, name, length) of every function in the Swift source `text` longer than `limit` lines."""
    code = code_only(text)
    found = []
    for match in DECLARATION.finditer(code):
        span = body_span(code, match.end())
        if span is None:
            continue
        first = code.count("\n", 0, match.start("keyword")) + 1
        last = code.count("\n", 0, span[1]) + 1
        length = last - first + 1
        if length > limit:
            keyword = match.group("keyword")
            name = match.group("name") or keyword.split("(")[0].strip()
            found.append((first, name, length))
    return found


def swift_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for folder, folders, files in os.walk(path):
                folders[:] = sorted(f for f in folders if not f.startswith("."))
                for name in sorted(files):
                    if name.endswith(".swift"):
                        yield os.path.join(folder, name)
        else:
            yield path


def main(argv=None):
    parser = argparse.ArgumentParser(description="Lists Swift functions longer than a limit.")
    parser.add_argument("--limit", type=int, default=LIMIT, help="most lines a function may have (default 60)")
    parser.add_argument("paths", nargs="+", help="Swift files or folders")
    arguments = parser.parse_args(argv)
    offenders = 0
    for path in swift_files(arguments.paths):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for line, name, length in long_functions(text, arguments.limit):
            print(f"{path}:{line}: {name} is {length} lines (limit {arguments.limit})")
            offenders += 1
    if offenders:
        print(f"{offenders} function(s) over {arguments.limit} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
