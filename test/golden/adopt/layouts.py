# --add-noqa golden: two rules on one line with a comment, a suppression
# that names another code, a line inside a multi-line f-string, a
# backslash-continued line with a trailing tab, another linter's noqa, and
# non-ASCII text.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)
model = nn.Linear(10, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
losses, total = [], 0
for epoch in range(3):
    for x, y in train_loader:
        probs = F.softmax(model(x), dim=1)  # tpf: ignore[TPF009] kept as written
        loss = crit(probs, y)
        y.to("cuda"); loss.backward()  # the step's gradients
        opt.step()
        total = total + \
            loss	
        print(f"""époque {epoch}
 {[p.item() for p in model(x)[0]]}
""")
        for i in range(len(y)):
            print(f"""{
                probs[i, 0].item()}""")  # «déjà vu»
ckpt = torch.load(args.resume)  # noqa: E501
