#!/usr/bin/env python3
"""Writes the committed seed corpora under Tests/FuzzCorpus/<target>/ (small inputs written
here, none copied from elsewhere). deploy/fuzz/run.sh also gives the XML-reading targets the
licensed fixtures under Tests/HealthImportTests/Fixtures as read-only seeds.
Usage: deploy/fuzz/make-seeds.py   (rewrites the seed folders)"""
import io
import os
import shutil
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "FuzzCorpus")
SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"

RECORDS = [
    f'<Record type="{SLEEP}" sourceName="Watch" sourceVersion="10.1" creationDate="2024-01-02 07:00:00 +0100" '
    f'startDate="2024-01-01 23:00:00 +0100" endDate="2024-01-02 06:30:00 +0100" '
    f'value="HKCategoryValueSleepAnalysisAsleepCore"/>',
    f'<Record type="{SLEEP}" sourceName="Anna&apos;s &quot;Watch&quot;" startDate="2024-01-02T01:00:00Z" '
    f'endDate="2024-01-02T02:00:00Z" value="HKCategoryValueSleepAnalysisAsleepREM">\n'
    f'  <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>\n</Record>',
    f"<Record type='{SLEEP}' sourceName='Phone' startDate='2024-01-02 00:00:00 +0000' "
    f"endDate='2024-01-02 00:10:00 +0000' value='HKCategoryValueSleepAnalysisAwake'/>",
    f'<Record type="{SLEEP}" sourceName="Watch" startDate="2024-01-02 03:00:00 +0000" '
    f'endDate="2024-01-02 02:00:00 +0000" value="HKCategoryValueSleepAnalysisInBed"/>',
]
OTHER = '<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="12" ' \
    'startDate="2024-01-01 10:00:00 +0100" endDate="2024-01-01 10:05:00 +0100"/>'
EXPORT = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE HealthData [\n<!ELEMENT HealthData (ExportDate,Me,Record*)>\n'
    '<!ATTLIST Record type CDATA #REQUIRED>\n]>\n<HealthData locale="en_GB">\n'
    ' <ExportDate value="2024-01-03 08:00:00 +0100"/>\n <Me HKCharacteristicTypeIdentifierSex=""/>\n '
    + "\n ".join([OTHER] + RECORDS)
    + "\n <!-- <Record type=\"" + SLEEP + "\"/> -->\n <![CDATA[ <Record ]]>\n</HealthData>\n"
)

CSV = [
    "sourceName,startDate,endDate,value\nWatch,2024-01-01 23:00:00 +0100,2024-01-02 06:00:00 +0100,"
    "HKCategoryValueSleepAnalysisAsleepCore\n",
    'sourceName,startDate,endDate,value,timeZone\n"Anna, ""the"" sleeper\nWatch",2024-01-01 23:00:00 +0100,'
    "2024-01-02 06:00:00 +0100,HKCategoryValueSleepAnalysisAsleepCore,Europe/Paris\n",
    "\ufefftype;sourceName;startDate;endDate;value;time_zone\r\n" + SLEEP
    + ";Watch;2024-01-01T00:00:00Z;2024-01-01T07:00:00Z;Awake;+01:00\r\n",
    "sourceName\tstartDate\tendDate\tvalue\tsub_children\nWatch\t2024-01-01T00:00:00Z\t2024-01-01T07:00:00Z\tDeep\t\n",
    'sourceName,startDate,endDate,value\n"Watch,2024-01-01T00:00:00Z,2024-01-01T07:00:00Z,Awake\n',
]

TIMESTAMPS = [
    "2023-01-02 23:04:05 +0100", "2023-01-02T23:04:05Z", "2023-01-02T23:04:05.499+01:00",
    "2023-01-02T23:04:05+0530", "2023-01-02T23:04:05-07", "2024-02-29 12:00:00 +0000",
    "2023-01-02 11:04:05\u202fpm +0100", "2023-01-02 01:00:00\u00a0p.m. +0000", "2023-01-02T1:00:00.6 pM Z",
    "9999-12-31T23:59:59.9-23:59", "0001-01-01 00:00:00 +1400",
]

HAE = [
    '{"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[{"startDate":"2024-09-21 22:10:00 +1000",'
    '"endDate":"2024-09-21 23:40:00 +1000","value":"Core","qty":1.5,"source":"Watch"}]}]}}',
    '\ufeff{"data":{"metrics":[{"data":[{"startDate":"2024-09-21 7:57:00\u202fam +1000","endDate":'
    '"2024-09-21 8:10:00\u202fam +1000","value":"Awake","source":"Phone\\u00e9\\ud83d\\ude00"}],'
    '"name":"sleep_analysis"},{"name":"step_count","data":[{"qty":1e3}]}],"workouts":[[[]],{"a":null,"b":true}]}}',
    '{"data":{"metrics":[{"name":"sleep_analysis","data":[{"date":"2024-09-21 00:00:00 +1000","asleep":7.1,'
    '"inBed":8,"sleepStart":"2024-09-20 23:00:00 +1000","sleepEnd":"2024-09-21 07:00:00 +1000"}]}]}}',
]

TOKEN = "sl_" + "0" * 15 + "1_" + "A" * 43
HTTP = [
    "GET /healthz\n\n",
    f"GET /api/v1/summary\nqhorizon=weekly\nqas_of=2024-01-31\nhauthorization=Bearer {TOKEN}\n\n",
    f"GET /api/v1/nights\nqfrom=2024-01-01\nqto=2024-01-31\nqcursor=abc\nhauthorization=bearer  {TOKEN} \n\n",
    f"PATCH /api/v1/settings\nhauthorization=Bearer {TOKEN}\nhcontent-type=application/json; charset=utf-8\n\n"
    '{"time_zone":"Europe/Berlin","target_seconds":28800,"minimum_seconds":21600}',
    "POST /api/v1/tokens\ncsession=abc\nhx-csrf-token=def\n\n{\"name\":\"phone\",\"scope\":\"ingest\"}",
    f"DELETE /api/v1/account\nhauthorization=Bearer {TOKEN}\n\n{{\"confirm_handle\":\"anna\"}}",
    "POST /api/v1/imports\nhcontent-type=multipart/form-data; boundary=x\nhcontent-length=12\n"
    "htransfer-encoding=chunked\n\n--x--\r\n",
    f"DELETE /api/v1/imports/7\nhauthorization=Bearer {TOKEN}\n\n",
    "POST /api/v1/health-auto-export\nhcontent-type=application/json\n\n{}",
    "POST /sign-in\nfhandle=anna\nfpassword=correct horse battery\nfcsrf=abc\ncsign-in=abc\n"
    "hx-forwarded-for=1.2.3.4, 5.6.7.8\nhx-forwarded-proto=https\nhhost=ledger.example:8443\n\n",
    "POST /sign-out\ncsession=abc\nfcsrf=abc\n\n",
    "GET /\ncsession=abc\n\n",
    "GET /nights.csv\ncsession=abc\nqfrom=2024-01-01\nqto=2025-01-01\n\n",
    "POST /settings\ncsession=abc\nftime_zone=UTC\nftarget=8:00\nfminimum=6:30\nfcsrf=x\n\n",
    "GET /static/app.0123456789ab.css\n\n",
    "HEAD /imports\nqdone=uploaded\n\n",
    "PUT /api/v1/summary\n\n",
]


def zip_bytes(entries, method):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, text in entries:
            archive.writestr(name, text)
    return buffer.getvalue()


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(data.encode() if isinstance(data, str) else data)


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    write("xml", "export.xml", EXPORT)
    write("xml", "records-only.xml", "<HealthData>\n" + "\n".join(RECORDS) + "\n</HealthData>")
    for index, record in enumerate(RECORDS + [OTHER, "<Record\n\ttype = 'x' a='>' b=\"'\"/>", "<Me/>"]):
        write("start-tag", f"tag-{index}", record)
    write("sleep-record", "records", b"\xff".join(record.encode() for record in RECORDS))
    for index, record in enumerate(RECORDS):
        write("sleep-record", f"record-{index}", record)
    for index, text in enumerate(CSV):
        write("csv", f"sleep-{index}.csv", text)
    for index, text in enumerate(TIMESTAMPS):
        write("timestamp", f"timestamp-{index}", text)
    for index, text in enumerate(HAE):
        write("hae", f"payload-{index}.json", text)
    write("zip", "export-deflated.zip", zip_bytes([("apple_health_export/export.xml", EXPORT)], zipfile.ZIP_DEFLATED))
    write("zip", "export-stored.zip", zip_bytes(
        [("apple_health_export/export_cda.xml", "<x/>"), ("apple_health_export/export.xml", EXPORT)],
        zipfile.ZIP_STORED))
    write("zip", "empty.zip", zip_bytes([], zipfile.ZIP_STORED))
    write("zip", "export.xml", EXPORT)
    write("zip", "sleep.csv", CSV[1])
    write("zip", "payload.json", HAE[0])
    for index, text in enumerate(HTTP):
        write("http", f"request-{index}", text)


main()
