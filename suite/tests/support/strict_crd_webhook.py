#!/usr/bin/env python3
"""A strict validating webhook for a custom resource (standard library only).

It denies any object of the custom resource that is not valid against its CRD's openAPIV3Schema, as
the strictest real webhooks do: a field the schema does not have (unless
x-kubernetes-preserve-unknown-fields covers it), a value of the wrong type, a missing required field,
a value outside the enum or the bounds. --schemas FILE is a JSON object {version: openAPIV3Schema}.
Every denial names the field, so a test can tell what reached it.
"""
import argparse
import json
import ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--cert", required=True)
parser.add_argument("--key", required=True)
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--schemas", required=True)
parser.add_argument("--kind", required=True)
args = parser.parse_args()

with open(args.schemas) as f:
    SCHEMAS = json.load(f)

META = ("apiVersion", "kind", "metadata")


def type_ok(schema, value):
    if schema.get("x-kubernetes-int-or-string"):
        return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)
    t = schema.get("type")
    if t is None:
        return True
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
    }.get(t, False)


def problems(schema, value, path, root=False):
    if value is None:
        return [] if schema.get("nullable") else [f"{path}: null"]
    if not type_ok(schema, value):
        return [f"{path}: {json.dumps(value)} is not of type {schema.get('type')}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {json.dumps(value)} is not one of {schema['enum']}"]
    found = []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            found.append(f"{path}: below the minimum")
        if "maximum" in schema and value > schema["maximum"]:
            found.append(f"{path}: above the maximum")
    if isinstance(value, str) and "maxLength" in schema and len(value) > schema["maxLength"]:
        found.append(f"{path}: longer than maxLength")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(f"{path}: more than maxItems")
        if "minItems" in schema and len(value) < schema["minItems"]:
            found.append(f"{path}: fewer than minItems")
        for i, item in enumerate(value):
            found += problems(schema.get("items", {}), item, f"{path}[{i}]")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                found.append(f"{path}.{name}: required")
        embedded = root or schema.get("x-kubernetes-embedded-resource")
        props = schema.get("properties", {})
        additional = schema.get("additionalProperties")
        for name, member in value.items():
            if embedded and name in META:
                continue
            if name in props:
                found += problems(props[name], member, f"{path}.{name}")
            elif isinstance(additional, dict):
                found += problems(additional, member, f"{path}.{name}")
            elif additional is True or schema.get("x-kubernetes-preserve-unknown-fields"):
                continue
            else:
                found.append(f"{path}.{name}: unknown field")
    return found


def judge(request):
    found = []
    for field in ("object", "oldObject"):
        obj = request.get(field)
        if not isinstance(obj, dict) or obj.get("kind") != args.kind:
            continue
        version = obj.get("apiVersion", "").rsplit("/", 1)[-1]
        schema = SCHEMAS.get(version)
        if schema is None:
            found.append(f"{field}: no schema for version {version!r}")
            continue
        if not isinstance(obj.get("metadata"), dict):
            found.append(f"{field}.metadata: missing")
        found += problems(schema, obj, field, root=True)
    return found


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        review = json.loads(body)
        request = review["request"]
        found = judge(request)
        response = {"uid": request["uid"], "allowed": not found}
        if found:
            response["status"] = {"code": 422, "message": "; ".join(found)}
        out = json.dumps({"apiVersion": review["apiVersion"], "kind": "AdmissionReview", "response": response}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(args.cert, args.key)
server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(f"listening on https://127.0.0.1:{args.port}", flush=True)
server.serve_forever()
