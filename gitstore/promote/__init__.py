"""Promotion: packets, routes, renderers, promotion branches and trailers, and the OKF page
checks the wiki gate runs."""
