#!/usr/bin/env python3
"""Builds one DocC catalog per library product, with the guides of docs/ as its articles.

The guides are written once, in docs/ (what readers on a code host see, and what DocSnippetsTests
compiles). Their DocC form is committed too, as the articles of `Sources/<Target>/<Target>.docc`, so that
any DocC build of the package (Xcode's, the Swift Package Index's, a bare `docc convert` of a catalog)
shows the guides; `--articles` writes them there, `--articles --check` fails when one is out of date (run
by .ci/run: edit the guide, then run `python3 scripts/docc_catalog.py --articles`). The committed landing
pages must read as DocC reads them (their links to guides as `<doc:name>` or site paths), since nothing
rewrites them before such a build.

With `--symbol-graphs`, it writes complete catalogs (the committed ones, the articles regenerated, the
symbol graphs beside them) under the output folder, for scripts/docc.sh, which runs `docc convert` on each.

For each library product of Package.swift (found with `swift package dump-package`):
- the committed landing page and any other files of `Sources/<Target>/<Target>.docc` are copied in;
- every guide `docs/<name>.md` (except the index, docs/README.md) becomes the article `<name>` of one
  catalog: the catalog whose landing page links it as `<doc:name>`, or the main product's catalog when no
  landing page does (so a new guide is picked up without any edit here);
- the guide's Markdown links are rewritten for DocC: `[x](errors.md#some-heading)` becomes
  `[x](doc:errors#Some-heading)`, an in-page `[x](#heading)` a `doc:` link to its own section, a link to a
  guide of another product a link to that article's page in the merged site, and a link to a file outside
  docs/ plain text (a DocC site has no such file to point to). Landing pages get the same treatment, so
  they can link guides by their relative path and read well on a code host too;
- the symbol graphs of the product's module are copied beside the catalog.

It fails (exit 1) when a link points at a guide or heading that does not exist, or when a top-level public
symbol of a module is not listed in the Topics of its landing page, so that every public symbol stays
grouped. On success it prints one line per product: `product<TAB>catalog<TAB>symbol graph folder`.

Usage: python3 scripts/docc_catalog.py --symbol-graphs DIR [--output DIR]
       python3 scripts/docc_catalog.py --articles [--check]
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import unicodedata
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
INDEX = "README.md"  # docs/README.md: the plain-Markdown index for a code host, not an article
MAIN_PRODUCT = "ConnectionKit"  # where a guide goes when no landing page claims it

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
# A code span (left alone) or an inline link; a code span may sit inside a link's text.
CODE_OR_LINK = re.compile(
    r"(?P<code>(`+)[\s\S]*?(?<!`)\2(?!`))"
    r"|\[(?P<text>(?:[^\[\]]|`[^`]*`)*)\]\((?P<target>[^()\s]+)\)"
)
DOC_LINK = re.compile(r"<doc:([\w-]+)(?:#[^>]*)?>")
SYMBOL_LINK = re.compile(r"``([^`]+)``")


class Failure(Exception):
    """A broken guide link or an ungrouped symbol: reported, and the script exits 1."""


def library_products():
    """(product, target) for every library product of Package.swift, in manifest order."""
    # scripts/docc.sh's scratch folder, so that a build running in .build does not hold this up.
    command = ["swift", "package", "--scratch-path", str(ROOT / ".build" / "docc"), "dump-package"]
    manifest = json.loads(subprocess.check_output(command, cwd=ROOT))
    return [
        (product["name"], product["targets"][0])
        for product in manifest["products"]
        if "library" in product["type"]
    ]


def plain_heading(markdown: str) -> str:
    """A heading's text as rendered: code spans, emphasis and links reduced to their text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"[`*_]", "", text).strip()


def github_slug(heading: str) -> str:
    """The anchor a code host gives a heading (lower case, punctuation dropped, spaces to dashes)."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def docc_anchor(heading: str) -> str:
    """The anchor DocC gives a heading: words joined by dashes, punctuation dropped, the rest escaped."""
    anchor = "-".join(part for part in re.split(r"[\s\-]+", heading) if part)
    anchor = "".join(c for c in anchor if c == "-" or not (c == "`" or unicodedata.category(c).startswith("P")))
    return urllib.parse.quote(anchor, safe="-")


def headings(lines):
    """Every heading outside code blocks: (level, text) in order."""
    found, fence = [], None
    for line in lines:
        if match := FENCE.match(line):
            marker = match.group(2)
            if fence is None:
                fence = marker
            elif marker.startswith(fence[0]) and len(marker) >= len(fence) and not match.group(3).strip():
                fence = None
            continue
        if fence is None and (match := re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)):
            found.append((len(match.group(1)), plain_heading(match.group(2))))
    return found


class Guide:
    def __init__(self, path: pathlib.Path):
        self.name = path.stem
        self.path = path
        self.lines = path.read_text().splitlines()
        found = headings(self.lines)
        if not found or found[0][0] != 1:
            raise Failure(f"{self.rel}: a guide starts with a `# Title` heading (the article's title)")
        self.title = found[0][1]
        self.anchors = {}  # code-host slug -> DocC anchor, with the code host's -1, -2 for repeats
        seen = {}
        for _, text in found[1:]:
            slug = github_slug(text)
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            self.anchors[slug if count == 0 else f"{slug}-{count}"] = docc_anchor(text)
        self.product = MAIN_PRODUCT

    @property
    def rel(self):
        return self.path.relative_to(ROOT)


def site_path(target: str, guide: str, anchor: str | None) -> str:
    """Where the article of a guide of another product is in the merged site (DocC adds the hosting base)."""
    return f"/documentation/{target.lower()}/{guide}" + (f"#{anchor}" if anchor else "")


def convert(source: pathlib.Path, lines, product: str, guides: dict, targets: dict) -> str:
    """A guide (or a landing page) as DocC Markdown for the catalog of `product`."""
    problems = []
    this = guides.get(source.stem) if source.parent == DOCS else None

    def link(match: re.Match) -> str:
        if match.group("code"):
            return match.group(0)
        text, target = match.group("text"), match.group("target")
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):  # https:, doc:, a site path
            return match.group(0)
        file, _, slug = target.partition("#")
        path = (source.parent / file).resolve()
        if not file and this is not None:
            linked = this
        elif path.parent == DOCS and path.stem in guides and path.suffix == ".md":
            linked = guides[path.stem]
        else:
            # A file of the repository (or the docs index), not an article: the site has no page for it.
            if not file or not path.exists():
                problems.append(f"links to {target}, which does not exist")
            return text
        anchor = None
        if slug:
            anchor = linked.anchors.get(slug)
            if anchor is None:
                problems.append(f"links to {target}, but {linked.rel} has no heading with that anchor")
                return text
        # A link whose text is the file name reads better as the article's title.
        bare = text.strip("`") in (file, target)
        if linked.product != product:
            shown = linked.title if bare else text
            return f"[{shown}]({site_path(targets[linked.product], linked.name, anchor)})"
        destination = f"doc:{linked.name}" + (f"#{anchor}" if anchor else "")
        return f"<{destination}>" if bare else f"[{text}]({destination})"

    out, prose, fence = [], [], None
    for line in lines:
        if match := FENCE.match(line):
            marker = match.group(2)
            if fence is None:
                fence = marker
                # Links may wrap across lines, so prose is rewritten a run of lines at a time.
                out.extend(CODE_OR_LINK.sub(link, "\n".join(prose)).split("\n") if prose else [])
                prose = []
                # ```swift package-manifest is Swift to a reader; DocC highlights by the first word.
                line = f"{match.group(1)}{marker}{match.group(3).strip().split(' ')[0]}"
            elif marker.startswith(fence[0]) and len(marker) >= len(fence) and not match.group(3).strip():
                fence = None
            out.append(line)
        elif fence is None:
            prose.append(line)
        else:
            out.append(line)
    out.extend(CODE_OR_LINK.sub(link, "\n".join(prose)).split("\n") if prose else [])
    if problems:
        raise Failure("\n".join(f"{source.relative_to(ROOT)}: {problem}" for problem in problems))
    return "\n".join(out) + "\n"


def top_level_symbols(graph_dir: pathlib.Path, module: str):
    """Names of the module's own top-level public symbols (types, global functions and variables)."""
    graph = json.loads((graph_dir / f"{module}.symbols.json").read_text())
    return sorted({s["names"]["title"] for s in graph["symbols"] if len(s["pathComponents"]) == 1})


def topics(landing: str) -> set:
    """Symbols a landing page lists under `## Topics`."""
    _, _, section = landing.partition("\n## Topics")
    return {link.split("/")[0].split("-")[0] for link in SYMBOL_LINK.findall(section)}


# Ends every committed article: where it comes from (DocC shows no HTML comment).
GENERATED = "<!-- Generated by scripts/docc_catalog.py from docs/{name}.md: edit that file, then run" \
    " `python3 scripts/docc_catalog.py --articles`. -->\n"


def assign_products(products, guides):
    """Each guide's product: the one whose landing page links it as `<doc:name>`, else the main product."""
    catalogs = {product: ROOT / "Sources" / target / f"{target}.docc" for product, target in products}
    landing_paths = {product: catalogs[product] / f"{target}.md" for product, target in products}
    landings = {product: path.read_text() if path.exists() else "" for product, path in landing_paths.items()}
    for product, landing in landings.items():
        for name in DOC_LINK.findall(landing):
            if name in guides and product != MAIN_PRODUCT:
                guides[name].product = product
    return catalogs, landing_paths, landings


def committed_articles(check: bool) -> int:
    """Writes (or with `check`, compares) every guide's article in its committed catalog."""
    products = library_products()
    targets = dict(products)
    guides = {p.stem: Guide(p) for p in sorted(DOCS.glob("*.md")) if p.name != INDEX}
    catalogs, landing_paths, _ = assign_products(products, guides)
    problems, written = [], 0
    for product, target in products:
        catalog = catalogs[product]
        landing = landing_paths[product]
        if landing.exists():
            text = landing.read_text()
            if convert(landing, text.splitlines(), product, guides, targets) != text:
                problems.append(f"{landing.relative_to(ROOT)}: link guides as <doc:name> or by their site path"
                                " (/documentation/<module>/<guide>), as DocC reads the committed catalog")
        wanted = {}
        for guide in guides.values():
            if guide.product == product:
                body = convert(guide.path, guide.lines, product, guides, targets)
                wanted[catalog / f"{guide.name}.md"] = body + "\n" + GENERATED.format(name=guide.name)
        stale = [p for p in catalog.glob("*.md") if p != landing and p not in wanted]
        for path, text in wanted.items():
            if path.exists() and path.read_text() == text:
                continue
            if check:
                problems.append(f"{path.relative_to(ROOT)} is not the article of docs/{path.name}")
            else:
                catalog.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                written += 1
        for path in stale:
            if check:
                problems.append(f"{path.relative_to(ROOT)}: no guide docs/{path.name} (remove the article)")
            else:
                path.unlink()
                written += 1
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print("Run `python3 scripts/docc_catalog.py --articles` after editing a guide of docs/.", file=sys.stderr)
        return 1
    if not check:
        print(f"{written} article(s) written or removed in Sources/*/*.docc")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbol-graphs", type=pathlib.Path)
    parser.add_argument("--output", type=pathlib.Path, help="where the catalogs go; without it, only check"
                        " that every product's symbol graph is there")
    parser.add_argument("--articles", action="store_true",
                        help="write every guide's article into its committed catalog")
    parser.add_argument("--check", action="store_true", help="with --articles: fail when one is out of date")
    args = parser.parse_args()
    if args.articles:
        return committed_articles(args.check)
    if args.symbol_graphs is None:
        parser.error("--symbol-graphs or --articles is required")

    products = library_products()
    targets = dict(products)
    absent = [t for _, t in products if not (args.symbol_graphs / f"{t}.symbols.json").exists()]
    if absent or args.output is None:
        for target in absent:
            print(f"no symbol graph {target}.symbols.json in {args.symbol_graphs}", file=sys.stderr)
        return 1 if absent else 0
    guides = {p.stem: Guide(p) for p in sorted(DOCS.glob("*.md")) if p.name != INDEX}
    catalogs, landing_paths, landings = assign_products(products, guides)

    failures = []
    if args.output.exists():
        shutil.rmtree(args.output)
    for product, target in products:
        catalog = args.output / product / f"{target}.docc"
        graphs = args.output / product / "symbol-graphs"
        if catalogs[product].exists():
            shutil.copytree(catalogs[product], catalog)
        else:
            catalog.mkdir(parents=True)
        graphs.mkdir(parents=True)
        for graph in args.symbol_graphs.glob(f"{target}*.symbols.json"):
            if graph.name == f"{target}.symbols.json" or graph.name.startswith(f"{target}@"):
                shutil.copy(graph, graphs / graph.name)

        # The landing page; the committed articles are regenerated from their guides just below.
        pages = [(page, catalog / page.name) for page in catalogs[product].glob("*.md") if page.stem not in guides]
        pages += [(g.path, catalog / f"{g.name}.md") for g in guides.values() if g.product == product]
        for source, destination in pages:
            try:
                text = convert(source, source.read_text().splitlines(), product, guides, targets)
                destination.write_text(text)
            except Failure as failure:
                failures.append(str(failure))

        missing = [s for s in top_level_symbols(graphs, target) if s not in topics(landings[product])]
        if missing:
            lines = "\n".join(f"- ``{name}``" for name in missing)
            failures.append(
                f"{landing_paths[product].relative_to(ROOT)}: these public symbols of {target} are in no group of its"
                f" `## Topics` (add each under the `###` group it belongs to):\n{lines}")
        print(f"{product}\t{catalog}\t{graphs}")

    if failures:
        print("\n\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as failure:
        print(failure, file=sys.stderr)
        sys.exit(1)
