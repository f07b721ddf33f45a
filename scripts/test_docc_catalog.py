#!/usr/bin/env python3
"""Tests of scripts/docc_catalog.py: how guides' links and headings become DocC links and anchors.

Run by .ci/run: python3 -m unittest discover -s scripts -p 'test_*.py'
"""
import pathlib
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import docc_catalog  # noqa: E402


class Guides(unittest.TestCase):
    """Guides in a temporary docs/ folder, `testing` belonging to a second product."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        root = pathlib.Path(folder.name)
        for name, value in (("ROOT", root), ("DOCS", root / "docs")):
            self.addCleanup(setattr, docc_catalog, name, getattr(docc_catalog, name))
            setattr(docc_catalog, name, value)
        (root / "docs").mkdir()
        (root / "scripts").mkdir()
        (root / "scripts" / "run.sh").write_text("")
        self.write("errors", "# Errors\n\nText.\n\n## What went wrong: `kind`\n\n## Retry-After\n\n## Retry-After\n")
        self.write("testing", "# Testing with `TestServer`\n\n## Faults\n")
        self.write("start", "# Getting started\n\n## 1. Add the package\n\n## Hooks of `ConnectionRequest<Output>`\n")
        self.guides = {p.stem: docc_catalog.Guide(p) for p in sorted(docc_catalog.DOCS.glob("*.md"))}
        self.guides["testing"].product = "ConnectionKitTesting"
        self.targets = {"ConnectionKit": "ConnectionKit", "ConnectionKitTesting": "ConnectionKitTesting"}

    def write(self, name, text):
        (docc_catalog.DOCS / f"{name}.md").write_text(text)

    def convert(self, body, product="ConnectionKit"):
        source = docc_catalog.DOCS / "start.md"
        lines = ["# Getting started", "", *textwrap.dedent(body).strip("\n").splitlines()]
        return "\n".join(docc_catalog.convert(source, lines, product, self.guides, self.targets).splitlines()[2:])

    def test_anchors_follow_docc_for_numbers_code_and_generics(self):
        self.assertEqual(docc_catalog.docc_anchor("1. Add the package"), "1-Add-the-package")
        self.assertEqual(docc_catalog.docc_anchor("What went wrong: `kind`"), "What-went-wrong-kind")
        self.assertEqual(docc_catalog.docc_anchor("The seed app’s superclass, complete"),
                         "The-seed-apps-superclass-complete")
        self.assertEqual(docc_catalog.docc_anchor("Hooks of ConnectionRequest<Output>"),
                         "Hooks-of-ConnectionRequest%3COutput%3E")

    def test_a_link_to_a_guide_becomes_a_doc_link_that_keeps_its_text(self):
        self.assertEqual(self.convert("See [the errors](errors.md)."), "See [the errors](doc:errors).")

    def test_a_link_whose_text_is_the_file_name_shows_the_article_title(self):
        self.assertEqual(self.convert("See [errors.md](errors.md)."), "See <doc:errors>.")

    def test_a_heading_link_uses_the_docc_anchor_and_the_code_hosts_numbering_of_repeats(self):
        self.assertEqual(self.convert("[k](errors.md#what-went-wrong-kind) [r](errors.md#retry-after-1)"),
                         "[k](doc:errors#What-went-wrong-kind) [r](doc:errors#Retry-After)")

    def test_an_in_page_link_points_at_its_own_article(self):
        self.assertEqual(self.convert("[up](#1-add-the-package)"), "[up](doc:start#1-Add-the-package)")

    def test_a_link_to_a_guide_of_another_product_points_into_the_merged_site(self):
        self.assertEqual(self.convert("[testing.md](testing.md#faults)"),
                         "[Testing with TestServer](/documentation/connectionkittesting/testing#Faults)")

    def test_a_link_that_wraps_across_lines_is_rewritten(self):
        self.assertEqual(self.convert("[the\nerrors](errors.md)"), "[the\nerrors](doc:errors)")

    def test_a_link_to_a_file_outside_docs_becomes_its_text(self):
        self.assertEqual(self.convert("Run [run.sh](../scripts/run.sh)."), "Run run.sh.")

    def test_web_links_code_spans_and_code_blocks_are_left_alone(self):
        body = "[w](https://example.com) `[c](errors.md)` ``Symbol``\n```swift package-manifest\n[c](errors.md)\n```"
        self.assertEqual(self.convert(body),
                         "[w](https://example.com) `[c](errors.md)` ``Symbol``\n```swift\n[c](errors.md)\n```")

    def test_a_link_to_a_missing_guide_file_or_heading_fails(self):
        for body in ("[x](nothing.md)", "[x](errors.md#nothing)", "[x](#nothing)", "[x](../nothing.sh)"):
            with self.subTest(body), self.assertRaises(docc_catalog.Failure):
                self.convert(body)

    def test_the_topics_of_a_landing_page_name_their_symbols(self):
        landing = "# ``M``\n\nSee ``NotListed``.\n\n## Topics\n\n### A\n\n- ``Listed``\n- ``JSON-swift.enum``\n"
        self.assertEqual(docc_catalog.topics(landing), {"Listed", "JSON"})


if __name__ == "__main__":
    unittest.main()
