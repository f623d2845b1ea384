"""The structural tags agree with the Lark grammars: xgrammar's verdict on
each sample string of target/constraint-samples.json (written by
`cargo test -p toolcall-constraints-check`) is the Lark grammar's.

Run with the xgrammar wheel installed and the stand-ins of torch and
transformers on the path (xgrammar imports them; string checks never use
them):

    TVM_FFI_DISABLE_TORCH_C_DLPACK=1 PYTHONPATH=constraints-check/stubs \\
        python constraints-check/xgrammar_check.py target/constraint-samples.json
"""

import json
import sys

import xgrammar
from xgrammar.testing import _is_grammar_accept_string


def main(path: str) -> int:
    cases = json.load(open(path, encoding="utf-8"))
    checked, disagreements = 0, []
    for case in cases:
        # The crate's output, as written.
        grammars = {
            "structural tag": xgrammar.Grammar.from_structural_tag(case["structural_tag"]),
            "GBNF": xgrammar.Grammar.from_ebnf(case["gbnf"], root_rule_name="root"),
        }
        for dialect, grammar in grammars.items():
            for sample in case["strings"]:
                verdict = _is_grammar_accept_string(grammar, sample["text"])
                checked += 1
                if verdict != sample["admitted"]:
                    disagreements.append(
                        f'{case["format"]} {case["constraint"]}: xgrammar on the {dialect} {verdict}, '
                        f'Lark {sample["admitted"]}: {sample["text"]!r}'
                    )
    for line in disagreements:
        print(line)
    print(f"{checked} verdicts over {len(cases)} structural tags and as many GBNF grammars, {len(disagreements)} disagreements")
    return 1 if disagreements or checked < 400 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
