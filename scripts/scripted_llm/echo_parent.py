"""Policy `echo` of server.py: kopt's LLM paths end to end with answers that are correct by
construction (scripts/device/issue34_ablation.sh, docs/eval.md). Usage: server.py echo PORT.

  - an explanation request (its prompt holds "kopt evidence digest"): a four-section
    narrative naming the digest's first finding id, without numbers;
  - a multiple-choice request ("Question:" and options A-D): "A";
  - anything else (a programmer request): the first ```cuda block of the last user message,
    echoed back with a comment naming the feedback it was given (the candidate is the
    parent: the run exercises the loop, not a model's skill).
The usage counts every message. Requests are served on threads and not logged. The same
commands with a real endpoint only change --llm-config.
"""
import re

from server import Answer, last_user_text


def answer_text(messages):
    user = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "user")
    last = last_user_text(messages)
    if "kopt evidence digest" in user:
        finding = re.search(r"\(id ([a-z0-9_]+)\)", user)
        name = finding.group(1) if finding else "no finding"
        return ("## What the kernel does\nIt runs the profiled kernel.\n## What limits it\n"
                f"The finding {name} limits it.\n## Why\nThe evidence digest names it first.\n"
                f"## What to change\nApply the first recommendation of {name}.")
    if "Question:" in last and "\nA. " in last:
        return "A"
    code = re.findall(r"```(?:cuda|cpp|c\+\+)?\n(.*?)```", last, re.S)
    feedback = "explanation" if "EXPLANATION" in last or "## What limits it" in last else "other"
    return f"```cuda\n// scripted candidate (feedback seen: {feedback})\n{code[0] if code else ''}```\n"


class EchoParent:
    threaded = True
    log_path = None

    def answer(self, body, headers):
        messages = body.get("messages", [])
        return Answer({"role": "assistant", "content": answer_text(messages)},
                      prompt_chars=sum(len(m.get("content") or "") for m in messages))


def make_policy(args):
    if args:
        raise SystemExit("usage: server.py echo PORT")
    return EchoParent()
