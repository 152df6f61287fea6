"""What every comparison shares: processes, data, servers, measuring, the report (issue 20)."""
