"""A document's records as CSV, one flat row each."""

from __future__ import annotations

import pandas as pd

from .document import Document


def render_csv(doc: Document) -> str:
    return pd.DataFrame(doc.records).to_csv(index=False)
