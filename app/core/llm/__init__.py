"""The one seam every LLM call passes: redaction, fencing, daily caps, the usage ledger, error mapping."""
