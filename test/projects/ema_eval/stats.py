# Recomputes BatchNorm statistics by running the model over the loader
# (no no_grad: the caller decides).
def recalibrate(loader, net):
    net.train()
    for images, _ in loader:
        net(images.cuda())
