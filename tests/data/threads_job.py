"""A plain-loop job whose weights depend on the thread count of its process: an MLP whose
layer norm and matrix products reduce over thousands of values, where another split of the
work rounds differently. It never sets threads itself: the run does (job.threads)."""

import torch

import rgt

STEPS = 12

with rgt.run(total_steps=STEPS) as run:
    torch.manual_seed(0)
    inputs, labels = torch.randn(8192, 256), torch.randint(0, 10, (8192,))
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.LayerNorm(256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    state = run.resume()
    step = state["step"] if state else 0
    if state:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
    while step < STEPS:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        step += 1
        run.log(step, loss=loss.item())
        if run.checkpoint_due(step):
            run.save(step, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "step": step})
    run.finish({"loss": {"value": loss.item(), "split": "test", "direction": "lower",
                         "n": len(labels)}},
               weights=model.state_dict())
