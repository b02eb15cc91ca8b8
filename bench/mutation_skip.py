"""Which mutants bench/mutation.py does not run: those that change only what Python never
evaluates here. Every module has `from __future__ import annotations`, so an annotation
is a string nobody reads, except a pydantic model's fields (evaluated at class creation,
so never skipped). Each such mutant survived the whole selection twice (a minute or more
apiece on a busy machine) only to be listed as equivalent.

Skipped: a type alias (`Phase = Literal[...]`, read only in annotations) of a module with
no pydantic model, and a mutant
that changes only the annotation of an annotated assignment in a function body or in a
`@dataclass` (`self.hand: HandState | None = None` -> `HandState & None`).
"""

from __future__ import annotations

import re
from typing import Any

ALIAS = re.compile(r"^[A-Z]\w* = Literal\[")
ANNOTATED = re.compile(r"^(\s*)([\w.]+): (.+?)( = .*)?$")


def skipped(context: Any) -> bool:
    """mutmut's pre_mutation context: True when the mutant changes nothing evaluated."""
    line = context.current_source_line
    if ALIAS.match(line):
        return "BaseModel" not in context.source  # a pydantic field would evaluate it
    before = ANNOTATED.match(line)
    if before is None:
        return False
    lines = context.source.split("\n")
    index = context.current_line_index
    if not _unevaluated_annotation(lines, index, len(before.group(1))):
        return False
    # mutmut imports this hook while mutmut itself is half imported: its names are
    # taken here (imported at the top, mutmut would drop the hook as not importable)
    from mutmut import Context, mutate

    copy = Context(source=context.source, mutation_id=context.mutation_id,
                   filename=context.filename, dict_synonyms=context.dict_synonyms)  # fmt: skip
    mutated = mutate(copy)[0].split("\n")
    if len(mutated) != len(lines):
        return False
    after = ANNOTATED.match(mutated[index])
    return (
        after is not None
        and after.group(1, 2, 4) == before.group(1, 2, 4)
        and after.group(3) != before.group(3)
    )


def _unevaluated_annotation(lines: list[str], index: int, indent: int) -> bool:
    """Whether an annotation at `indent` on line `index` is never evaluated: inside a
    function, or a field of a @dataclass (not a pydantic model)."""
    for number in range(index - 1, -1, -1):
        text = lines[number]
        stripped = text.lstrip()
        depth = len(text) - len(stripped)
        if not stripped or stripped.startswith(("#", "@", ")")) or depth >= indent:
            continue
        if stripped.startswith(("def ", "async def ")):
            return True
        if stripped.startswith("class "):
            above = lines[number - 1].strip() if number else ""
            return above.startswith("@dataclass") and "BaseModel" not in stripped
        if depth == 0:
            return False  # module level
        indent = depth  # an if/for/with/try: look further out
    return False
