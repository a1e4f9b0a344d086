#!/usr/bin/env python3
"""Lists the functions, initializers, subscripts, computed properties and closures stored
in properties of the Swift sources whose bodies are longer than a limit (80 lines by
default): the lines between the line of the opening brace and the line of the closing one.

Exits 1 when one is found in a file that does not say why in a comment containing
`function-length:` (those are listed as allowed); 0 otherwise.

Usage: deploy/lint-function-length.py [--max N] [--exclude PATH]... [FOLDER...]
  FOLDER     where to look (default: Sources, relative to the repository)
  --max N    the longest allowed, in lines (default 80)
  --exclude  a file or folder to leave out (repeatable); FUNCTION_LENGTH_EXCLUDE in the
             environment adds more, separated by ':'. Nothing is left out by default.

The scan is textual: comments and string literals (with their interpolations) are blanked,
then braces are matched. Good enough for this repository's code, not a Swift parser.
"""

import os
import re
import sys

DECLARATION = re.compile(r"\b(func|init|deinit|subscript|var|let)\b")
# A comment that allows long declarations in its file, saying why.
ALLOWANCE = re.compile(r"(//|/\*).*function-length:")
# Lines at parenthesis depth 0 that may continue a declaration's signature.
CONTINUATION = re.compile(r"^\s*(->|where\b|throws\b|rethrows\b|async\b|\{|\)|\]|,|&|:)")


def blank(text):
    """`text` with comments and string literals replaced by spaces, newlines kept."""
    out = list(text)
    n = len(text)

    def erase(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    def skip_code(i, closing):
        """From i in code, up to and including the `closing` character at depth 0."""
        depth = 0
        while i < n:
            c = text[i]
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                erase(i, j)
                i = j
            elif text.startswith("/*", i):
                i = skip_block_comment(i)
            elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
                i = skip_string(i)
            elif c in "([{":
                depth += 1
                i += 1
            elif c in ")]}":
                if depth == 0 and c == closing:
                    return i + 1
                depth -= 1
                i += 1
            else:
                i += 1
        return n

    def skip_block_comment(i):
        start = i
        depth = 0
        while i < n:
            if text.startswith("/*", i):
                depth += 1
                i += 2
            elif text.startswith("*/", i):
                depth -= 1
                i += 2
                if depth == 0:
                    break
            else:
                i += 1
        erase(start, i)
        return i

    def skip_string(i):
        start = i
        hashes = 0
        while text[i] == "#":
            hashes += 1
            i += 1
        multiline = text.startswith('"""', i)
        quote = '"""' if multiline else '"'
        i += len(quote)
        terminator = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        while i < n:
            if text.startswith(escape, i):
                j = i + len(escape)
                if j < n and text[j] == "(":
                    erase(start, i)
                    i = skip_code(j + 1, ")")
                    start = i
                    continue
                i = j + 1
            elif text.startswith(terminator, i):
                i += len(terminator)
                break
            elif text[i] == "\n" and not multiline:
                break
            else:
                i += 1
        erase(start, i)
        return i

    i = 0
    while i < n:
        i = skip_code(i, "")
        if i < n:
            i += 1
    return "".join(out)


def body_start(code, i, keyword):
    """Index of the `{` that opens the body of the declaration whose keyword ends at i, or None."""
    depth = 0
    at_line_start = False
    while i < len(code):
        c = code[i]
        if c == "\n" and depth == 0:
            if keyword in ("var", "let"):
                return None
            at_line_start = True
            i += 1
            continue
        if at_line_start and not c.isspace():
            at_line_start = False
            if not CONTINUATION.match(code[i:]):
                return None
        if c in "([<" and not (c == "<" and keyword in ("var", "let")):
            depth += 1
        elif c in ")]>" and depth > 0 and not (c == ">" and code[i - 1] == "-"):
            depth -= 1
        elif c == "}" and depth == 0:
            return None
        elif c == "{" and depth == 0:
            return i
        elif c == "=" and depth == 0 and keyword in ("var", "let") and code[i - 1] not in "=!<>" \
                and code[i + 1 : i + 2] != "=":
            rest = code[i + 1 :].lstrip(" \t")
            return len(code) - len(rest) if rest.startswith("{") else None
        elif c == ";" and depth == 0:
            return None
        i += 1
    return None


def matching_brace(code, i):
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return None


def declarations(path, limit):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    code = blank(text)
    found = []
    for match in DECLARATION.finditer(code):
        keyword = match.group(1)
        if keyword in ("var", "let"):
            # Not `if let`, `guard let`, `case let`, `for var`, or a pattern binding.
            before = code[: match.start()].rstrip(" \t")
            if before.endswith(("if", "guard", "case", "while", "for", ",", "(")):
                continue
        start = body_start(code, match.end(), keyword)
        if start is None:
            continue
        end = matching_brace(code, start)
        if end is None:
            continue
        first = code.count("\n", 0, match.start()) + 1
        length = code.count("\n", start, end) - 1
        if length > limit:
            name = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*|[^\s(<]+)?", code[match.end() :])
            label = keyword if keyword in ("init", "deinit", "subscript") else f"{keyword} {name.group(1) or ''}"
            found.append((first, length, label.strip()))
    return found, ALLOWANCE.search(text) is not None


def main(argv):
    limit = 80
    excluded = [p for p in os.environ.get("FUNCTION_LENGTH_EXCLUDE", "").split(":") if p]
    folders = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--max" and args:
            limit = int(args.pop(0))
        elif arg == "--exclude" and args:
            excluded.append(args.pop(0))
        elif arg in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            folders.append(arg)
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    excluded = [os.path.normpath(p) for p in excluded]
    offending = 0
    for folder in folders or ["Sources"]:
        for root, _, files in sorted(os.walk(folder)):
            for name in sorted(files):
                path = os.path.normpath(os.path.join(root, name))
                if not name.endswith(".swift"):
                    continue
                if any(path == p or path.startswith(p + os.sep) for p in excluded):
                    continue
                found, allowed = declarations(path, limit)
                for line, length, label in found:
                    note = "  (allowed: the file says why, function-length:)" if allowed else ""
                    print(f"{path}:{line}: {label} is {length} lines (over {limit}){note}")
                    offending += 0 if allowed else 1
    if offending:
        print(f"{offending} declaration{'s' if offending != 1 else ''} over {limit} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
