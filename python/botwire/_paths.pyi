# botwire._paths, written by the build or the install: where the package's
# libraries are.
from typing import List

def library_dirs(here: str) -> List[str]: ...

# Where the botwire command is (the build's, the install's); a wheel's
# _paths has none.
def tool_dirs(here: str) -> List[str]: ...
