/// The DOCTYPE blocks Apple writes at the top of `export.xml`.
enum ExportDoctype {
    /// Text for a style, ending with a line break; empty for ``ExportSpec/DoctypeStyle/none``.
    static func text(_ style: ExportSpec.DoctypeStyle) -> String {
        switch style {
        case .none: return ""
        case .apple: return head + workoutActivity(closed: true) + tail
        case .iOS16Malformed: return head + workoutActivity(closed: false) + tail
        }
    }

    private static func workoutActivity(closed: Bool) -> String {
        """
        <!ELEMENT WorkoutActivity ((WorkoutEvent|WorkoutStatistics|WorkoutRoute|MetadataEntry)*)>
        <!ATTLIST WorkoutActivity
          uuid                  CDATA #REQUIRED
          startDate             CDATA #REQUIRED
          endDate               CDATA #IMPLIED
          duration              CDATA #IMPLIED
          durationUnit          CDATA #IMPLIED

        """ + (closed ? ">\n" : "")
    }

    private static let head = """
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 13 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT ExportDate EMPTY>
        <!ATTLIST ExportDate
          value CDATA #REQUIRED
        >
        <!ELEMENT Me EMPTY>
        <!ATTLIST Me
          HKCharacteristicTypeIdentifierDateOfBirth         CDATA #REQUIRED
          HKCharacteristicTypeIdentifierBiologicalSex       CDATA #REQUIRED
          HKCharacteristicTypeIdentifierBloodType           CDATA #REQUIRED
          HKCharacteristicTypeIdentifierFitzpatrickSkinType CDATA #REQUIRED
          HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse CDATA #REQUIRED
        >
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
        <!ELEMENT Correlation ((MetadataEntry|Record)*)>
        <!ATTLIST Correlation
          type          CDATA #REQUIRED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        <!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics|WorkoutActivity)*)>
        <!ATTLIST Workout
          workoutActivityType   CDATA #REQUIRED
          duration              CDATA #IMPLIED
          durationUnit          CDATA #IMPLIED
          totalDistance         CDATA #IMPLIED
          totalDistanceUnit     CDATA #IMPLIED
          totalEnergyBurned     CDATA #IMPLIED
          totalEnergyBurnedUnit CDATA #IMPLIED
          sourceName            CDATA #REQUIRED
          sourceVersion         CDATA #IMPLIED
          device                CDATA #IMPLIED
          creationDate          CDATA #IMPLIED
          startDate             CDATA #REQUIRED
          endDate               CDATA #REQUIRED
        >

        """

    private static let tail = """
        <!ELEMENT WorkoutEvent EMPTY>
        <!ATTLIST WorkoutEvent
          type                  CDATA #REQUIRED
          date                  CDATA #REQUIRED
          duration              CDATA #IMPLIED
          durationUnit          CDATA #IMPLIED
        >
        <!ELEMENT ActivitySummary EMPTY>
        <!ATTLIST ActivitySummary
          dateComponents           CDATA #IMPLIED
          activeEnergyBurned       CDATA #IMPLIED
          activeEnergyBurnedGoal   CDATA #IMPLIED
          activeEnergyBurnedUnit   CDATA #IMPLIED
          appleExerciseTime        CDATA #IMPLIED
          appleExerciseTimeGoal    CDATA #IMPLIED
          appleStandHours          CDATA #IMPLIED
          appleStandHoursGoal      CDATA #IMPLIED
        >
        <!ELEMENT MetadataEntry EMPTY>
        <!ATTLIST MetadataEntry
          key   CDATA #REQUIRED
          value CDATA #REQUIRED
        >
        ]>

        """
}
