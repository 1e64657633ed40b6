"""A user's Hugging Face Trainer script (a 2-layer BERT built from its config, tiny vocabulary,
no download), made resumable with the HF adapter. Environment knobs for the tests:
ADAPTER_STEPS (optimizer steps), ADAPTER_SLEEP (seconds per step, so a drill can kill it
mid-run), ADAPTER_EVERY (checkpoint every N steps)."""

import os
import time

import torch
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)

import rgt
from rgt.adapters.hf import RgtTrainerCallback

STEPS = int(os.environ.get("ADAPTER_STEPS", "24"))
SLEEP = float(os.environ.get("ADAPTER_SLEEP", "0"))
EVERY = int(os.environ.get("ADAPTER_EVERY", "3"))


class Sequences(torch.utils.data.Dataset):
    """Random token sequences; the label says whether token 7 occurs."""

    def __init__(self, seed: int, size: int):
        generator = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(1, 32, (size, 12), generator=generator)
        self.labels = (self.ids == 7).any(dim=1).long()

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return {"input_ids": self.ids[index], "attention_mask": torch.ones(12, dtype=torch.long),
                "labels": self.labels[index]}


class Pace(TrainerCallback):
    def on_step_end(self, args, state, control, **kwargs):
        time.sleep(SLEEP)


def main() -> None:
    torch.manual_seed(1)
    torch.use_deterministic_algorithms(True)
    config = BertConfig(vocab_size=32, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=16, num_labels=2)
    model = BertForSequenceClassification(config)
    train, val, test = Sequences(0, 48), Sequences(1, 32), Sequences(2, 32)
    with rgt.run(every_steps=EVERY) as run:
        callback = RgtTrainerCallback(run)
        args = TrainingArguments(output_dir="hf-output", max_steps=STEPS, learning_rate=1e-3,
                                 per_device_train_batch_size=8, per_device_eval_batch_size=16,
                                 logging_steps=2, eval_strategy="steps", eval_steps=6,
                                 save_strategy="no", report_to="none", use_cpu=True, seed=1,
                                 disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=val,
                          callbacks=[callback, Pace()])
        trainer.train(resume_from_checkpoint=callback.resume_from_checkpoint)
        model.eval()
        with torch.no_grad():
            logits = model(input_ids=test.ids).logits
            nll = torch.nn.functional.cross_entropy(logits, test.labels, reduction="none")
        run.finish({"loss": {"value": nll.mean().item(), "split": "test", "direction": "lower",
                             "n": len(test)}},
                   per_sample={"test": {"label": test.labels.numpy(), "nll": nll.numpy()}},
                   weights=model.state_dict())


if __name__ == "__main__":
    main()
