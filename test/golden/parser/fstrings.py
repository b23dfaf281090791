# f-strings in CPython 3.11's representation: parts span the whole string.
name = "x"
a = f"plain {name}"
b = f"{name!r:>{width}} and {value:.{prec}f}"
c = f"{name=}" f"{name = !s}" f"{name=:>10}"
d = (f"first {a}"
     "second"
     f"third {b!r}")
e = f'''multi
  line {a +
 b} and {
 c}'''
f = u"u-kind " f"{a}"
g = f"{{literal}} {a}}}"
h = f"ä{a}ö{b}"
i = f"{x for x in y}" f"{a, b}" f"{ (yield) }"
j = rf"\d{a}\n" fr'{b}\\'
k = f"{a:{b}{c}d}" f"{'nested' + f'{z}'}"
l = f"" f"{a}" ""
m = f"\N{BULLET} {a} \x41 \{a}"
n = f'''{"""inner
string""" + a}'''
