"""A user's own training loop (an MLP on synthetic data), made resumable with the plain-loop API.

Environment knobs for the tests: PLAIN_STEPS (total steps), PLAIN_SLEEP (seconds per step, so a
drill can kill it mid-run), PLAIN_EVERY (checkpoint every N steps), PLAIN_FAIL_AT (raise at that
step: a code error).
"""

import os
import time

import torch

import rgt

STEPS = int(os.environ.get("PLAIN_STEPS", "60"))
SLEEP = float(os.environ.get("PLAIN_SLEEP", "0"))
EVERY = int(os.environ.get("PLAIN_EVERY", "7"))
FAIL_AT = int(os.environ.get("PLAIN_FAIL_AT", "0"))


def data():
    generator = torch.Generator().manual_seed(0)
    inputs = torch.randn(256, 8, generator=generator)
    labels = (inputs.sum(dim=1) > 0).long()
    return inputs, labels


def main() -> None:
    torch.manual_seed(1)
    torch.use_deterministic_algorithms(True)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                                torch.nn.Linear(16, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    inputs, labels = data()
    with rgt.run(total_steps=STEPS, every_steps=EVERY) as run:
        state = run.resume()
        step = 0
        if state:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            step = state["step"]
        while step < STEPS:
            index = torch.randint(0, len(labels), (32,))  # drawn from the restored RNG
            loss = torch.nn.functional.cross_entropy(model(inputs[index]), labels[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if step == FAIL_AT:
                raise RuntimeError(f"a bug at step {step}")
            run.log(step, loss=loss.item())
            time.sleep(SLEEP)
            if run.checkpoint_due(step):
                run.save(step, {"model": model.state_dict(),
                                "optimizer": optimizer.state_dict(), "step": step})
        model.eval()
        with torch.no_grad():
            nll = torch.nn.functional.cross_entropy(model(inputs), labels, reduction="none")
            correct = (model(inputs).argmax(dim=1) == labels).double()
        run.finish({"loss": {"value": nll.mean().item(), "split": "test", "direction": "lower",
                             "n": len(labels)},
                    "accuracy": {"value": correct.mean().item(), "split": "test",
                                 "direction": "higher", "n": len(labels)}},
                   per_sample={"test": {"label": labels.numpy(), "nll": nll.numpy()}},
                   weights=model.state_dict())


if __name__ == "__main__":
    main()
