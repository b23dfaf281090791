# Generators and coroutines: yield, yield from, await, async for.
def gen(xs):
    for x in xs:
        got = yield x
        if got:
            yield from got


async def consume(aiter, fut):
    async for item in aiter:
        await fut
    return [v async for v in aiter]
