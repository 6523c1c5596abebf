"""Documents built from analysis tables: report structure and its HTML / PDF renderers."""
