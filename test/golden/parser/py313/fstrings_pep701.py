# PEP 701 f-strings as training scripts write them (Python 3.12+).
stats = {"loss": 0.25, "acc": 0.9}
names = ["resnet", "vit"]
print(f"loss={stats["loss"]:.4f} acc={stats['acc']:.1%}")
print(f"{", ".join(names)}")
print(f"{"\n".join(f"- {n}" for n in names)}")
header = f"{'epoch':>5} | {"step":>6}"
line = f"{
    stats["loss"]  # the running loss
    * 100
:.2f}"
nested = f"{f"{f"{names[0]!r}"}"}"
width, prec = 10, 3
value = 3.14159
print(f"{value:{width}.{prec}f}|{value:>{width}}|{value=}|{value = :.2f}|{value!r:>{width}}")
print(f"{value:{{width}}>10}")
print(f"a{{b}}c{value}d" "plain" f"{width}" u"tail")
print(f"{value:%H\n}" rf"\d{width}\{prec}")
doc = f"""
  model: {names[0]}
  {"loss"}: {stats["loss"]:{"<"}{width}}
"""
empty = f"{value:}" f"" ""
dbg = f"{value=}" f"{ value = !s}" f"{value=:>{width}}"
tup = f"{width, prec}" f"{*names,}" f"{(yield_ := 3)}"
