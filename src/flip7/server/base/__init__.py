"""What every layer of the server stands on: settings, the wire models (protocol,
requests), the error base, close codes, limits, names, formats, the i18n catalogues, logs.
"""
