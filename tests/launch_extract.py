#!/usr/bin/env python3
"""Static description of a ROS 2 Python launch file, without importing ROS.

    python3 tests/launch_extract.py launch/corridor.launch.py  ->  JSON on stdout

`ros2 launch` cannot run on the development machines (no launch wheels), so
tests/launch_consistency.rs compares what this script reads out of
launch/corridor.launch.py with launch/corridor.graph.yaml (`breakbench up`).

It compiles the file (the same check as `python3 -m py_compile`), then walks
its syntax tree (the `ast` module of the standard library):
  - module-level constants (literals) by name;
  - every `Node(...)` call: package, executable, name, remappings (a literal or
    a module constant), parameters (a local variable becomes "$name", a dict
    its keys with the source text of each value), condition (the variable);
  - every `DeclareLaunchArgument(...)`: name and default (literal, or the
    source text of the substitution);
  - the names the returned LaunchDescription list holds.
Exit 1 with a message on anything it cannot read.
"""

import ast
import json
import sys


def fail(msg):
    print(f"launch_extract: {msg}", file=sys.stderr)
    sys.exit(1)


def main(path):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    try:
        compile(src, path, "exec")
    except SyntaxError as e:
        fail(f"{path}:{e.lineno}: {e.msg}")
    tree = ast.parse(src, path)

    constants = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                constants[stmt.targets[0].id] = ast.literal_eval(stmt.value)
            except ValueError:
                pass

    def value(node):
        """Literal, module constant, or a marker for anything computed."""
        try:
            return ast.literal_eval(node)
        except ValueError:
            pass
        if isinstance(node, ast.Name):
            if node.id in constants:
                return constants[node.id]
            return "$" + node.id
        return "<" + ast.unparse(node) + ">"

    def call_name(call):
        f = call.func
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None

    gen = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "generate_launch_description"), None)
    if gen is None:
        fail("no generate_launch_description()")

    assigned = {}  # variable -> Node call
    for stmt in ast.walk(gen):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if isinstance(stmt.value, ast.Call) and call_name(stmt.value) == "Node":
                assigned[id(stmt.value)] = stmt.targets[0].id

    nodes, arguments = [], {}
    for call in ast.walk(gen):
        if not isinstance(call, ast.Call):
            continue
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        if call_name(call) == "Node":
            params = []
            for p in kw.get("parameters", ast.List(elts=[])).elts:
                if isinstance(p, ast.Dict):
                    params.append({ast.literal_eval(k): ast.unparse(v) for k, v in zip(p.keys, p.values)})
                else:
                    params.append(value(p))
            remaps = value(kw["remappings"]) if "remappings" in kw else []
            nodes.append(
                {
                    "var": assigned.get(id(call)),
                    "package": value(kw.get("package", ast.Constant(None))),
                    "executable": value(kw.get("executable", ast.Constant(None))),
                    "name": value(kw.get("name", ast.Constant(None))),
                    "remappings": [list(r) for r in remaps] if isinstance(remaps, list) else remaps,
                    "parameters": params,
                    "condition": value(kw["condition"]) if "condition" in kw else None,
                }
            )
        elif call_name(call) == "DeclareLaunchArgument":
            name = ast.literal_eval(call.args[0])
            default = kw.get("default_value")
            arguments[name] = None if default is None else value(default)

    returned = []
    for stmt in ast.walk(gen):
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Call) and call_name(stmt.value) == "LaunchDescription":
            returned = sorted({n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)})

    json.dump(
        {"constants": {k: v for k, v in constants.items() if isinstance(v, (str, int, float, bool, list, tuple))},
         "nodes": nodes, "arguments": arguments, "returned": returned},
        sys.stdout,
        indent=1,
        default=list,
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: launch_extract.py <file.launch.py>")
    main(sys.argv[1])
