try:
    pass
except* ValueError as e:
    pass
except* (TypeError, KeyError):
    pass
else:
    pass
finally:
    pass
try:
    pass
except Exception:
    pass
except:
    pass
try:
    pass
finally:
    pass
with a, b as c, d() as (e, f):
    pass
with (a as b, c as d,):
    pass
with (a, b):
    pass
with (yield):
    pass
async def f():
    async with a as b:
        pass
    async for x in y:
        pass
    await z
