// Autograd provenance at program points: each snippet marks lines with
// `# [[pN]]` and the tests assert the GradState of a name on that line (the
// value stored there, else the value read) and the grad mode there.
// Covers helper functions, values crossing no_grad blocks, loops, and
// bindings rather than names.
#include <doctest/doctest.h>

#include "test/ir/ir_test_util.h"

using tpf::dataflow::GradMode;
using tpf::dataflow::GradState;

TEST_CASE("grad_provenance: model calls, loss functions and arithmetic carry a graph") {
  auto p = tpf::test::run(R"(
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(4, 2)
crit = nn.CrossEntropyLoss()
x = torch.randn(8, 4)
out = model(x)  # [[p1]]
loss = crit(out, torch.zeros(8))  # [[p2]]
scaled = loss * 0.5 + 1  # [[p3]]
w = torch.zeros(3, requires_grad=True)  # [[p4]]
z = torch.zeros(3)  # [[p5]]
y = (w * 2).sum()  # [[p6]]
m = F.mse_loss(out, out)  # [[p7]]
)");
  CHECK(p->grad("p1", "x") == GradState::NoGraph);
  CHECK(p->grad("p1", "out") == GradState::Graph);
  CHECK(p->grad("p2", "loss") == GradState::Graph);
  CHECK(p->grad("p3", "scaled") == GradState::Graph);
  CHECK(p->grad("p4", "w") == GradState::Graph);
  CHECK(p->grad("p5", "z") == GradState::NoGraph);
  CHECK(p->grad("p6", "y") == GradState::Graph);
  CHECK(p->grad("p7", "m") == GradState::Graph);
}

TEST_CASE("grad_provenance: item, detach, tolist, argmax, comparisons and int casts detach") {
  auto p = tpf::test::run(R"(
import torch
net = torch.nn.Linear(4, 2)
out = net(torch.randn(2, 4))
a = out.sum().item()  # [[p1]]
b = out.detach()  # [[p2]]
c = out.tolist()  # [[p3]]
d = out.argmax(dim=1)  # [[p4]]
e = out > 0  # [[p5]]
f = int(out.sum())  # [[p6]]
g = torch.argmax(out)  # [[p7]]
h = out.long()  # [[p8]]
i = out.data  # [[p9]]
j = out.detach().cpu()  # [[p10]]
k = out.cpu()  # [[p11]]
)");
  for (const char* pt : {"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10"}) {
    CAPTURE(pt);
    std::string name(1, "abcdefghij"[std::string(pt) == "p10" ? 9 : pt[1] - '1']);
    CHECK(p->grad(pt, name) == GradState::NoGraph);
  }
  CHECK(p->grad("p11", "k") == GradState::Graph);
}

TEST_CASE("grad_provenance: anything computed under no_grad / inference_mode is detached") {
  auto p = tpf::test::run(R"(
import torch
model = torch.nn.Linear(4, 2)
x = torch.randn(2, 4)
before = model(x)  # [[p1]]
with torch.no_grad():
    inside = model(x)  # [[p2]]
    doubled = before * 2  # [[p3]]
    kept = before  # [[p4]]
after = model(x)  # [[p5]]
with torch.inference_mode():
    inf = model(x)  # [[p6]]
with torch.set_grad_enabled(False):
    off = model(x)  # [[p7]]
with torch.no_grad():
    with torch.enable_grad():
        on = model(x)  # [[p8]]
    back = model(x)  # [[p9]]
torch.set_grad_enabled(False)
later = model(x)  # [[p10]]
)");
  CHECK(p->grad("p1", "before") == GradState::Graph);
  CHECK(p->mode("p2") == GradMode::Disabled);
  CHECK(p->grad("p2", "inside") == GradState::NoGraph);
  CHECK(p->grad("p3", "doubled") == GradState::NoGraph);
  // A value computed before the block keeps its graph when merely read inside.
  CHECK(p->grad("p4", "kept") == GradState::Graph);
  CHECK(p->mode("p5") == GradMode::Enabled);
  CHECK(p->grad("p5", "after") == GradState::Graph);
  CHECK(p->grad("p6", "inf") == GradState::NoGraph);
  CHECK(p->grad("p7", "off") == GradState::NoGraph);
  CHECK(p->mode("p8") == GradMode::Enabled);
  CHECK(p->grad("p8", "on") == GradState::Graph);
  CHECK(p->mode("p9") == GradMode::Disabled);
  CHECK(p->grad("p10", "later") == GradState::NoGraph);
}

TEST_CASE("grad_provenance: bindings, not names: a helper returning loss.item() gives a float") {
  auto p = tpf::test::run(R"(
import torch
import torch.nn.functional as F

def train_step(model, x, y):
    loss = F.cross_entropy(model(x), y)  # [[p1]]
    loss.backward()
    return loss.item()

def forward_loss(model, x, y):
    return F.cross_entropy(model(x), y)

def identity(t):
    return t

model = torch.nn.Linear(4, 2)
x = torch.randn(2, 4)
y = torch.zeros(2)
loss = train_step(model, x, y)  # [[p2]]
loss2 = forward_loss(model, x, y)  # [[p3]]
same = identity(loss2)  # [[p4]]
plain = identity(3.0)  # [[p5]]
)");
  // Inside the helper, the callers' context says `model` is a module.
  CHECK(p->grad("p1", "loss") == GradState::Graph);
  CHECK(p->grad("p2", "loss") == GradState::NoGraph);
  CHECK(p->grad("p3", "loss2") == GradState::Graph);
  CHECK(p->grad("p4", "same") == GradState::Graph);
  CHECK(p->grad("p5", "plain") == GradState::NoGraph);
}

TEST_CASE("grad_provenance: loops accumulate graphs through phis and containers") {
  auto p = tpf::test::run(R"(
import torch
model = torch.nn.Linear(4, 2)
total = 0.0
safe = 0.0
losses = []
logged = []
for step in range(10):
    out = model(torch.randn(2, 4))
    loss = out.sum()
    total += loss  # [[p1]]
    safe += loss.item()  # [[p2]]
    losses.append(loss)
    logged.append(loss.detach())
print(total, safe)  # [[p3]]
first = losses[0]  # [[p4]]
clean = logged[0]  # [[p5]]
outs = [model(x) for x in [torch.randn(2, 4)]]  # [[p6]]
)");
  CHECK(p->grad("p1", "total") == GradState::Graph);
  CHECK(p->grad("p2", "safe") == GradState::NoGraph);
  CHECK(p->grad("p3", "total") == GradState::Graph);
  CHECK(p->grad("p3", "safe") == GradState::NoGraph);
  CHECK(p->grad("p4", "first") == GradState::Graph);
  CHECK(p->grad("p5", "clean") == GradState::NoGraph);
  CHECK(p->grad("p6", "outs") == GradState::Graph);
}

TEST_CASE("grad_provenance: functions decorated or called under no_grad run detached") {
  auto p = tpf::test::run(R"(
import torch

@torch.no_grad()
def evaluate(model, x):
    pred = model(x)  # [[p1]]
    return pred

def validate(model, x):
    pred = model(x)  # [[p2]]
    return pred

def train(model, x):
    out = model(x)  # [[p3]]
    return out

model = torch.nn.Linear(4, 2)
x = torch.randn(2, 4)
a = evaluate(model, x)  # [[p4]]
with torch.no_grad():
    b = validate(model, x)  # [[p5]]
c = train(model, x)  # [[p6]]
)");
  CHECK(p->mode("p1") == GradMode::Disabled);
  CHECK(p->grad("p1", "pred") == GradState::NoGraph);
  // validate is only ever called under no_grad in this file.
  CHECK(p->mode("p2") == GradMode::Disabled);
  CHECK(p->grad("p2", "pred") == GradState::NoGraph);
  CHECK(p->grad("p3", "out") == GradState::Graph);
  CHECK(p->grad("p4", "a") == GradState::NoGraph);
  CHECK(p->grad("p5", "b") == GradState::NoGraph);
  CHECK(p->grad("p6", "c") == GradState::Graph);
}

TEST_CASE("grad_provenance: model classes of the file, self attributes and recursion") {
  auto p = tpf::test::run(R"(
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
    def forward(self, x):
        h = self.fc(x)  # [[p1]]
        return h.relu()

def rec(n, t):
    if n == 0:
        return t
    return rec(n - 1, t) * 2

net = Net()
out = net(torch.randn(1, 4))  # [[p2]]
r = rec(3, out)  # [[p3]]
unknown = some_library.run(out)  # [[p4]]
)");
  CHECK(p->grad("p1", "h") == GradState::Graph);
  CHECK(p->grad("p2", "out") == GradState::Graph);
  CHECK(p->grad("p3", "r") == GradState::Graph);
  CHECK(p->grad("p4", "unknown") == GradState::Unknown);
  auto f = p->ir.find_function("rec");
  REQUIRE(f.valid());
  CHECK(p->facts.summaries.of(f).recursive);
}
