"""Local fakes of outside services, served on loopback for scenario tests."""
