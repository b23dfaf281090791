# TPF003 must fire: the loop clears one optimizer's gradients, but steps a
# second optimizer over another network whose gradients are never cleared.
import torch
import torch.nn as nn


def fit(encoder, critic, batches, lr=1e-4):
    torch.manual_seed(0)
    opt_enc = torch.optim.Adam(encoder.parameters(), lr=lr)
    opt_critic = torch.optim.Adam(critic.parameters(), lr=lr)
    for x in batches:
        z = encoder(x)
        critic_loss = critic(z.detach()).mean() - critic(x).mean()
        critic_loss.backward()  # expect: TPF003
        opt_critic.step()

        opt_enc.zero_grad()
        enc_loss = -critic(encoder(x)).mean()
        enc_loss.backward()
        opt_enc.step()


def fit_both_cleared(encoder, critic, batches, lr=1e-4):
    opt_enc = torch.optim.Adam(encoder.parameters(), lr=lr)
    opt_critic = torch.optim.Adam(critic.parameters(), lr=lr)
    for x in batches:
        opt_critic.zero_grad()
        (critic(encoder(x).detach()).mean() - critic(x).mean()).backward()
        opt_critic.step()
        opt_enc.zero_grad()
        (-critic(encoder(x)).mean()).backward()
        opt_enc.step()


if __name__ == "__main__":
    fit(nn.Linear(8, 8), nn.Linear(8, 1), [torch.randn(4, 8)])
