"""What a finished PDF must be (PDF/A, PDF/UA, e-invoice) and the checks that prove it."""
