"""Drop-in routes: other services' APIs (Gotenberg, jsreport, DocRaptor) spoken as thin
adapters onto our jobs, so their clients get our persistence, retries and status."""
