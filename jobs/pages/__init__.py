"""Browser pages: thin views over the same services and selectors as the API."""
