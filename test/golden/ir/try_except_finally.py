# try/except/else/finally: the try entry block and every block of the body
# have an exception edge to the handler dispatch; each exit path (normal,
# exceptional, return) runs its own copy of the finally body.
def load(path):
    f = open(path)
    try:
        data = f.read()
    except (OSError, ValueError) as e:
        data = None
        log(e)
    except Exception:
        raise
    else:
        data = data.strip()
    finally:
        f.close()
    return data


def early(x):
    try:
        if x:
            return 1
        return 2
    finally:
        cleanup()


def groups():
    try:
        run()
    except* ValueError:
        pass
