"""The rules' words and profiles: the vocabulary of codes and 台 items, the presets."""

from __future__ import annotations

from fastapi import APIRouter

from table_service.service.routes.common import READ
from table_service.service.routes.models import PRESET_VALUES, PresetValues
from table_service.service.vocabulary import VOCABULARY, Vocabulary


def router() -> APIRouter:
    router = APIRouter()

    @router.get("/api/vocabulary", responses=READ)
    async def vocabulary() -> Vocabulary:
        """The names of the rules, from the rulebook: every violation and fault code (the
        rules it enforces, whether it makes the seat 相公, its name and meaning in Chinese
        and English), every 台 item (names, default 台) and the claims' names."""
        return VOCABULARY

    @router.get("/api/profiles", responses=READ)
    async def profiles() -> list[PresetValues]:
        """The preset profiles a session may name, each written out: the values a form
        starts from when it changes some of them (a `profile` of `{"preset": …, …}`)."""
        return PRESET_VALUES

    return router
