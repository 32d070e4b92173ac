"""Privacy: detect and mask secrets and personal data, and flag prompt injections."""
