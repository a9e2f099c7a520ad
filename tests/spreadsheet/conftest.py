"""LibreOffice Calc, one profile a test module (starting it is the slow part), for the tests that open
wfctl's files in a real spreadsheet."""

from __future__ import annotations

import pytest

from tests.spreadsheet.calc import Calc


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> Calc:
    return Calc(tmp_path_factory.mktemp("calc-profile"))
