from rgt.train.checkpoint import CheckpointStore
from rgt.train.determinism import capture_rng, restore_rng


def train(model, optimizer, batches, loss_fn, steps):
    store = CheckpointStore("checkpoints/my-run", keep=2)
    loaded = store.load_latest()
    step = 0
    if loaded is not None:
        state, _ = loaded
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        restore_rng(state["rng"])
        step = state["step"]
    while step < steps:  # doctor: preemption-signal
        optimizer.zero_grad()
        loss_fn(model(batches[step]), step).backward()
        optimizer.step()
        step += 1
        if step % 100 == 0:
            store.save(step, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                              "step": step, "rng": capture_rng()})
    return step
