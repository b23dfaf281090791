# global: loads and stores go to module globals (LoadGlobal/StoreGlobal), and
# a name some function rebinds has no unique module binding.
STEP = 0
LR = 0.1


def tick():
    global STEP
    STEP = STEP + 1
    return STEP * LR


def forget():
    global LR
    del LR
