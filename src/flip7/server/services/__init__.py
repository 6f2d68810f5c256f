"""What the server offers beside the tables: identities and ratings, replays, the coach's
jobs, scorecards (each over the store; their routes are in ``api.routes``).
"""
