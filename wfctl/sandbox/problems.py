"""RFC 9457 problem details (G10): the one shape every error of the sandbox takes."""

from __future__ import annotations

import json
from http import HTTPStatus

from starlette.responses import Response

PROBLEM_TYPE = "application/problem+json"


class ApiProblem(Exception):
    """Raised anywhere in a handler; the dispatcher turns it into a problem+json response."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        errors: dict[str, list[str]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors
        self.headers = headers


def problem_body(status: int, detail: str, errors: dict[str, list[str]] | None = None) -> bytes:
    body: dict[str, object] = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if errors:
        body["errors"] = errors
    return json.dumps(body, separators=(",", ":")).encode()


def problem_response(
    status: int,
    detail: str,
    errors: dict[str, list[str]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    hdrs = dict(headers or {})
    if status == 401:
        hdrs.setdefault("WWW-Authenticate", "Bearer")
    return Response(problem_body(status, detail, errors), status_code=status, headers=hdrs,
                    media_type=PROBLEM_TYPE)


def from_exception(exc: ApiProblem) -> Response:
    return problem_response(exc.status, exc.detail, exc.errors, exc.headers)


def unauthorized(detail: str) -> ApiProblem:
    return ApiProblem(401, detail, headers={"WWW-Authenticate": "Bearer"})


def not_found(kind: str, record_id: str) -> ApiProblem:
    return ApiProblem(404, f"{kind} {record_id} not found")


def forbidden(detail: str) -> ApiProblem:
    return ApiProblem(403, detail)


def invalid(errors: dict[str, list[str]], detail: str = "the request has invalid fields") -> ApiProblem:
    return ApiProblem(400, detail, errors=errors)
