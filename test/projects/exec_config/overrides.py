# Run by train.py as exec(open("overrides.py").read()): each command-line
# argument is a config file to run here, or a --name=value override of a
# module-level setting of train.py.
import ast
import sys

for arg in sys.argv[1:]:
    if arg.endswith(".py"):
        with open(arg) as fh:
            exec(fh.read())
        continue
    name, text = arg[2:].split("=")
    if name not in globals():
        raise SystemExit(f"unknown setting {name}")
    try:
        globals()[name] = ast.literal_eval(text)
    except ValueError:
        globals()[name] = text
