# The compiled module botwire._tape (_tape.c): the decoder's tape into
# Python objects.
from typing import Any, List

def objects(tape: Any) -> List[Any]: ...
