"""The sandbox's agency endpoints (G6): read it; an admin updates it."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wfctl.sandbox import validation as v
from wfctl.sandbox.auth import Principal
from wfctl.sandbox.handling import (
    Service,
    json_answer,
    read_body,
)
from wfctl.sandbox.problems import forbidden

_AGENCY_COLUMNS = {"name": "name", "email": "email", "phone": "phone", "workWeekStart": "work_week_start",
                   "calendarYearStart": "calendar_year_start", "holidayYearStart": "holiday_year_start",
                   "holidayCapHours": "holiday_cap_hours"}


async def get_agency(api: Service, request: Request, who: Principal) -> Response:
    return json_answer(_agency(api, who.agency_id))


async def update_agency(api: Service, request: Request, who: Principal) -> Response:
    if who.role != "admin":
        raise forbidden("only an admin may update the agency")
    fields = v.validate(await read_body(request), v.AGENCY)
    if fields:
        sets = ", ".join(f"{_AGENCY_COLUMNS[k]} = ?" for k in fields)
        with api.store.statement() as db:
            db.execute(f"UPDATE agencies SET {sets} WHERE id = ?", (*fields.values(), who.agency_id))
    return json_answer(_agency(api, who.agency_id))


def _agency(api: Service, agency_id: str) -> dict[str, Any]:
    row = api.db.execute("SELECT name, email, phone, work_week_start, calendar_year_start, "
                          "holiday_year_start, holiday_cap_hours FROM agencies WHERE id = ?",
                          (agency_id,)).fetchone()
    return {"name": row[0], "email": row[1], "phone": row[2], "workWeekStart": row[3],
            "calendarYearStart": row[4], "holidayYearStart": row[5], "holidayCapHours": row[6]}
