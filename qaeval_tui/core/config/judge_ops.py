"""`[judge.pricing]`: what a model judge's tokens cost, for the run's estimated cost (never part of the
judge config hash: a price changes no verdict)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from qaeval_tui.core.config.sections import Section


class JudgePricing(Section):
    input_per_million: float = Field(ge=0, description="Price of a million input (prompt) tokens.")
    output_per_million: float = Field(ge=0, description="Price of a million output (completion) tokens.")
    currency: Annotated[str, Field(min_length=1, max_length=12)] = Field(
        default="USD", description="Currency the prices are in, printed beside the estimate."
    )
