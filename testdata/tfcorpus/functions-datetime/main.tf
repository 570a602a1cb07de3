# Date and time functions on fixed timestamps, with the examples of their
# documentation. timestamp() is impure: unknown at plan. plantimestamp()
# is known at plan; only its shape is recorded.

output "datetime" {
  value = {
    formatdate = [
      formatdate("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z"),
      formatdate("EEEE, DD-MMM-YY hh:mm:ss ZZZ", "2018-01-02T23:12:01Z"),
      formatdate("EEE, DD MMM YYYY hh:mm:ss ZZZ", "2018-01-02T23:12:01-08:00"),
      formatdate("MMM DD, YYYY", "2018-01-02T23:12:01Z"),
      formatdate("HH:mmaa", "2018-01-02T23:12:01Z"),
      formatdate("h:mm AA 'o''clock'", "2018-01-02T13:12:01Z"),
      formatdate("YYYY-MM-DD'T'hh:mm:ssZ", "2018-01-02T23:12:01+05:30"),
    ]
    timeadd = [timeadd("2017-11-22T00:00:00Z", "10m"), timeadd("2017-11-22T00:00:00Z", "-1h30m"), timeadd("2024-02-28T12:00:00Z", "24h")]
    timecmp = [timecmp("2017-11-22T00:00:00Z", "2017-11-22T00:00:00Z"), timecmp("2017-11-22T00:00:00Z", "2017-11-22T01:00:00Z"), timecmp("2017-11-22T01:00:00Z", "2017-11-22T00:00:00Z"), timecmp("2017-11-22T01:00:00Z", "2017-11-22T00:00:00-01:00")]
  }
}

output "plantimestamp_shape" {
  value = [length(plantimestamp()), timecmp(plantimestamp(), "2020-01-01T00:00:00Z")]
}

output "timestamp" {
  value = timestamp()
}

resource "terraform_data" "created" {
  input = {
    at       = timestamp()
    deadline = timeadd("2030-01-01T00:00:00Z", "720h")
  }
}
