"""The Flask app: thin views over the table session and the ledger."""
