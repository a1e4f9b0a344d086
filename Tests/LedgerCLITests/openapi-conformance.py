#!/usr/bin/python3
"""Checks server responses against docs/openapi.json for the server tests.

Started once per test process with the document's path as its argument. Reads one JSON
line per response on standard input ({"method", "path", "status", "content_type",
"body"}) and answers one line: "ok", or what does not conform. Uses Debian's
python3-jsonschema (Draft 2020-12, the dialect of OpenAPI 3.1).
"""
import json
import sys

from jsonschema import Draft202012Validator

document = json.load(open(sys.argv[1], encoding="utf-8"))
for name, schema in document["components"]["schemas"].items():
    Draft202012Validator.check_schema(schema)


def pointer(*parts):
    return "#/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def resolve(node):
    while "$ref" in node and node["$ref"].startswith("#/components/responses/"):
        node = document["components"]["responses"][node["$ref"].rsplit("/", 1)[1]]
    return node


def operation(method, path):
    segments = [s for s in path.split("?", 1)[0].split("/") if s]
    for template, item in document["paths"].items():
        pattern = [s for s in template.split("/") if s]
        if len(pattern) != len(segments):
            continue
        if all(p == s or (p.startswith("{") and p.endswith("}")) for p, s in zip(pattern, segments)):
            found = item.get("get" if method == "HEAD" else method.lower())
            if found is not None:
                return template, found
    return None, None


def check(request):
    method, path, status = request["method"], request["path"], str(request["status"])
    template, found = operation(method, path)
    if found is None:
        # An unknown route or method is answered with an error document, like any failure.
        if status in ("404", "405"):
            return validate(json.loads(request["body"] or "null"), "#/components/schemas/Error", f"{method} {path} {status}")
        return f"{method} {path}: no such operation in the document"
    responses = found["responses"]
    key = status if status in responses else ("default" if "default" in responses else None)
    if key is None:
        return f"{method} {template}: status {status} is not documented"
    response = resolve(responses[key])
    content = response.get("content")
    body = request["body"]
    if not content:
        return "ok" if body == "" or method == "HEAD" else f"{method} {template} {status}: a body where none is documented"
    media = (request.get("content_type") or "").split(";")[0].strip().lower()
    if media not in content:
        return f"{method} {template} {status}: content type {media!r} is not documented"
    if media != "application/json" or method == "HEAD":
        return "ok"
    try:
        value = json.loads(body)
    except ValueError:
        return f"{method} {template} {status}: the body is not JSON"
    return validate(value, schema_pointer(template, method, key, responses[key]), f"{method} {template} {status}")


def validate(value, schema, where):
    """Validates against the document as the root, so every #/components/... reference resolves."""
    root = dict(document)
    root["$ref"] = schema
    errors = sorted(Draft202012Validator(root).iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        at = "/".join(str(p) for p in first.absolute_path) or "(root)"
        return f"{where}: at {at}: {first.message}"
    return "ok"


def schema_pointer(template, method, key, response):
    if "$ref" in response:
        name = response["$ref"].rsplit("/", 1)[1]
        return pointer("components", "responses", name, "content", "application/json", "schema")
    verb = "get" if method == "HEAD" else method.lower()
    return pointer("paths", template, verb, "responses", key, "content", "application/json", "schema")


for line in sys.stdin:
    try:
        answer = check(json.loads(line))
    except Exception as error:  # a crash here is a failed check, never a hung test
        answer = f"validator error: {error!r}"
    print(answer.replace("\n", " "), flush=True)
