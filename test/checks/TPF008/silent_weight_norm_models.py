# TPF008 stays silent when a validation helper leaves in eval mode models
# whose layers eval mode does not change: weight-normed convolutions,
# LeakyReLU, padding and pooling. Their methods that remove the weight norm
# for inference (`layer.remove_weight_norm()`) name weight normalization, a
# reparametrization with no train/eval behaviour, not a norm layer.
import torch
import torch.nn as nn


class ResStack(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.blocks = nn.ModuleList(
            [nn.Sequential(nn.LeakyReLU(0.2), nn.utils.weight_norm(nn.Conv1d(ch, ch, 3, padding=1))) for _ in range(3)]
        )

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return x

    def remove_weight_norm(self):
        for block in self.blocks:
            nn.utils.remove_weight_norm(block[1])


class Generator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.net = nn.Sequential(nn.ReflectionPad1d(3), nn.utils.weight_norm(nn.Conv1d(1, ch, 7)), ResStack(ch),
                                 nn.utils.weight_norm(nn.Conv1d(ch, 1, 1)))

    def forward(self, x):
        return self.net(x).tanh()

    def eval(self, inference=False):
        super().eval()
        if inference:
            self.remove_weight_norm()

    def remove_weight_norm(self):
        for layer in self.net:
            if len(layer.state_dict()) != 0:
                try:
                    nn.utils.remove_weight_norm(layer)
                except Exception:
                    layer.remove_weight_norm()


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.utils.weight_norm(nn.Conv1d(1, 16, 15)), nn.LeakyReLU(0.2), nn.AvgPool1d(4))

    def forward(self, x):
        return self.net(x)


# case: the validation helper evaluates both models in eval mode
def validate(gen, critic, loader):
    gen.eval()
    critic.eval()
    total = 0.0
    with torch.no_grad():
        for mel, audio in loader:
            total += (critic(gen(mel)) - critic(audio)).abs().mean().item()
    return total


# case: the training loop validates every few epochs, never calling train() again
def train(loader, val_loader, epochs):
    gen, critic = Generator().cuda(), Critic().cuda()
    opt_g = torch.optim.Adam(gen.parameters(), lr=1e-4)
    opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4)
    gen.train()
    critic.train()
    for epoch in range(epochs):
        if epoch % 10 == 0:
            validate(gen, critic, val_loader)
        for mel, audio in loader:
            fake = gen(mel.cuda())
            opt_d.zero_grad()
            (critic(fake.detach()).mean() - critic(audio.cuda()).mean()).backward()
            opt_d.step()
            opt_g.zero_grad()
            (-critic(fake).mean()).backward()
            opt_g.step()


# case: the generator alone, put in eval mode inline before the step loop resumes
def fit(gen, opt, loader, val_batch, epochs):
    for epoch in range(epochs):
        gen.eval()
        with torch.no_grad():
            print(gen(val_batch).abs().mean().item())
        for mel, audio in loader:
            opt.zero_grad()
            (gen(mel) - audio).abs().mean().backward()
            opt.step()


# case: the module-level run
if __name__ == "__main__":
    train([], [], 1)
    fit(Generator(), torch.optim.SGD(Generator().parameters(), lr=0.1), [], torch.zeros(1, 1, 64), 1)
