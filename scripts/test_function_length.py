#!/usr/bin/env python3
"""Tests of scripts/function_length.py: which Swift functions it finds too long, and how it counts.

Run by .ci/run: python3 -m unittest discover -s scripts -p 'test_*.py'
"""
import contextlib
import io
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import function_length  # noqa: E402


def function(header, body_lines, indent="    "):
    """A function whose length, from `header` to its closing brace, is `body_lines` + 2."""
    body = "".join(f"{indent}    step({index})\n" for index in range(body_lines))
    return f"{indent}{header} {{\n{body}{indent}}}\n"


class Counting(unittest.TestCase):
    def test_a_function_of_exactly_the_limit_passes_and_one_more_line_fails(self):
        source = "struct S {\n" + function("func fits()", 58) + function("func over()", 59) + "}\n"
        self.assertEqual(function_length.long_functions(source), [(62, "over", 61)])

    def test_the_length_runs_from_the_keyword_line_to_the_closing_brace(self):
        source = "/// Doc.\n@discardableResult\n" + function("public static func f(\n    a: Int\n) -> Int", 3, "")
        # The header takes three lines, then three body lines and the closing brace: seven, attributes not counted.
        self.assertEqual(function_length.long_functions(source, limit=6), [(3, "f", 7)])
        self.assertEqual(function_length.long_functions(source, limit=7), [])

    def test_init_deinit_and_subscript_are_functions_too(self):
        source = (
            "final class C {\n"
            + function("convenience init?(x: Int)", 3)
            + function("deinit", 3)
            + function("subscript(index: Int) -> Int", 3)
            + "}\n"
        )
        names = [name for _, name, _ in function_length.long_functions(source, limit=4)]
        self.assertEqual(names, ["init?", "deinit", "subscript"])

    def test_braces_in_strings_comments_and_interpolations_do_not_count(self):
        source = (
            "func f() {\n"
            '    let a = "}}}"\n'
            "    // }\n"
            "    /* } /* nested } */ } */\n"
            '    let b = """\n'
            "        }\n"
            '        \\(x.map { "}" })\n'
            '        """\n'
            '    let c = #"}" \\(x) \\#(y.map { "}" })"#\n'
            "}\n"
            "func g() {\n"
            "}\n"
        )
        self.assertEqual(function_length.long_functions(source, limit=1), [(1, "f", 10), (11, "g", 2)])

    def test_a_requirement_without_a_body_is_skipped(self):
        source = "protocol P {\n    func a()\n    func b() -> Int\n}\n" + function("func c()", 1, "")
        self.assertEqual(function_length.long_functions(source, limit=2), [(5, "c", 3)])

    def test_closures_and_nested_functions_stay_inside_their_function(self):
        source = "func outer() {\n    let x = { 1 }\n" + function("func inner()", 2) + "    if y { z() }\n}\n"
        self.assertEqual(function_length.long_functions(source, limit=7), [(1, "outer", 8)])


class CommandLine(unittest.TestCase):
    def run_on(self, sources, *options):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        root = pathlib.Path(folder.name)
        for name, text in sources.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        output, errors = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(errors):
            code = function_length.main([*options, str(root)])
        return code, output.getvalue().replace(str(root) + "/", "")

    def test_exits_1_naming_each_offender_with_its_file_and_line(self):
        code, output = self.run_on(
            {
                "A/Long.swift": "\n" + function("func tooLong()", 60, ""),
                "B/Short.swift": function("func short()", 3, ""),
                "B/Also.swift": function("init()", 61, ""),
                "notes.txt": function("func ignored()", 99, ""),
            }
        )
        self.assertEqual(code, 1)
        self.assertEqual(
            output.splitlines(),
            ["A/Long.swift:2: tooLong is 62 lines (limit 60)", "B/Also.swift:1: init is 63 lines (limit 60)"],
        )

    def test_exits_0_when_every_function_fits(self):
        code, output = self.run_on({"Fine.swift": function("func fine()", 58, "")})
        self.assertEqual((code, output), (0, ""))

    def test_the_limit_can_be_set(self):
        code, output = self.run_on({"Fine.swift": function("func fine()", 8, "")}, "--limit", "9")
        self.assertEqual(code, 1)
        self.assertIn("fine is 10 lines (limit 9)", output)


if __name__ == "__main__":
    unittest.main()
